import Decimal from "decimal.js";
import { boundedCache } from "./bounded-cache";

// Engine-wide decimal context: 50 significant digits, banker's rounding, never exponent notation.
export const Dec = Decimal.clone({
  precision: 50,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
});

/** Published index levels carry eight decimals. */
export const LEVEL_DECIMALS = 8;

/**
 * Decimals the engine made from text, by that text. Decimals are immutable, and the same few
 * prices (a venue's ticks, a constituent's last price, a weight of "1") come back hour after hour:
 * each is parsed once instead of at every use. Cleared when full, so it never grows without bound.
 */
const fromText = boundedCache<string, Decimal>(65_536);
/** The plain text of each decimal made from text (what fullPrecision gives), written once. */
const canonical = new WeakMap<Decimal, string>();

/** Whether `value` is a decimal of the engine context already (decimal.js sets `constructor` on every instance). */
const isDec = (value: Decimal.Value): value is Decimal =>
  typeof value === "object" && (value as Decimal & { constructor: unknown }).constructor === Dec;

/**
 * Re-homes any decimal input in the engine context so arithmetic never inherits a caller's
 * precision. The value is never changed: a decimal of the engine context is returned as it is,
 * and text gives the same decimal each time it is seen.
 */
export function dec(value: Decimal.Value): Decimal {
  if (isDec(value)) return value;
  if (typeof value !== "string") return new Dec(value);
  return fromText(value, (text) => {
    const d = new Dec(text);
    canonical.set(d, d.toString());
    return d;
  });
}

/** Rounds a level for publication only: eight decimals, ROUND_HALF_EVEN. */
export function publishLevel(level: Decimal): string {
  return dec(level).toFixed(LEVEL_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** Full-precision decimal string (plain notation) for state and link records. */
export function fullPrecision(value: Decimal): string {
  const d = dec(value);
  return canonical.get(d) ?? d.toString();
}
