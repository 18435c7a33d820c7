import Decimal from "decimal.js";

// Engine-wide decimal context: 50 significant digits, banker's rounding, never exponent notation.
export const Dec = Decimal.clone({
  precision: 50,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
});

/** Published index levels carry eight decimals. */
export const LEVEL_DECIMALS = 8;

/** Re-homes any decimal input in the engine context so arithmetic never inherits a caller's precision. */
export function dec(value: Decimal.Value): Decimal {
  return new Dec(value);
}

/** Rounds a level for publication only: eight decimals, ROUND_HALF_EVEN. */
export function publishLevel(level: Decimal): string {
  return new Dec(level).toFixed(LEVEL_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** Full-precision decimal string (plain notation) for state and link records. */
export function fullPrecision(value: Decimal): string {
  return new Dec(value).toString();
}
