// math.sumprecise (es-shims) ships no types: Math.sumPrecise of ES2026, the exactly rounded sum.
declare module "math.sumprecise" {
  /** The sum of `items` computed exactly and rounded once to the nearest double (ties to even); -0 when empty. */
  export default function sumPrecise(items: Iterable<number>): number;
}
