/** Published volatility numbers carry six decimals (negative zero normalized). */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}

/**
 * x rounded to `decimals` decimals, to nearest from its exact binary value (Number#toFixed; a
 * double is never exactly halfway at one decimal or more, so the tie rule never applies), negative zero normalized.
 * Python's Decimal(x).quantize(Decimal(10) ** -decimals, ROUND_HALF_EVEN) gives the same digits.
 */
export function roundFixed(x: number, decimals: number): number {
  return Number(x.toFixed(decimals)) + 0;
}
