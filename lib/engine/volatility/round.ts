/** Published volatility numbers carry six decimals (negative zero normalized). */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}
