import sumPrecise from "math.sumprecise";

/**
 * The correctly rounded sum of doubles: the exact mathematical sum of `xs`, rounded once to the
 * nearest double (ties to even), so the result does not depend on the order or grouping of the
 * terms. Python's math.fsum has the same semantics (Shewchuk's exact partials), so an outside
 * verifier in Python gets the same double. Implemented by math.sumprecise (the es-shims
 * implementation of ES2026 Math.sumPrecise); an empty or all-zero sum is +0, as math.fsum gives.
 */
export function fsum(xs: Iterable<number>): number {
  return sumPrecise(xs) + 0;
}

/** x squared, as one multiplication (Python's `x ** 2` can differ from `x * x` by an ulp; both sides use x * x). */
export function square(x: number): number {
  return x * x;
}
