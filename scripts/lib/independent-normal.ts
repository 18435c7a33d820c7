// A standard normal CDF written apart from the engine's (lib/engine/volatility/normal.ts), so that
// known-truth checks of the volatility methodology never reuse the code they check: the Maclaurin
// series of erf near 0 and the continued fraction of erfc in the tails, each to ~1e-14.

function erfSeries(x: number): number {
  // erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)): all terms positive
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x * x) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
}

function erfcContinuedFraction(x: number): number {
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))), x > 0, by Lentz's method
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Phi(z) = P(Z <= z). */
export function phi(z: number): number {
  if (z === Number.POSITIVE_INFINITY) return 1;
  if (z === Number.NEGATIVE_INFINITY) return 0;
  const x = z / Math.SQRT2;
  if (Math.abs(x) < 2.5) return 0.5 * (1 + erfSeries(x));
  return x > 0 ? 1 - 0.5 * erfcContinuedFraction(x) : 0.5 * erfcContinuedFraction(-x);
}

/** Phi^-1 by bisection on phi (slow, exact to double precision). */
export function phiInverse(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * Math.max(1, Math.abs(lo)); i++) {
    const mid = (lo + hi) / 2;
    if (phi(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The variance of each leg's probability realized over a horizon, for legs that are the intervals
 * between `thresholds` (ascending, in the state's units) of a Gaussian state now at `x`, moving by
 * `sdStep` over the horizon and by `sdRest` after it (both > 0): the expectation over the step
 * z ~ N(0, 1) of (P_j(x + sdStep z) - P_j(x))^2, by Simpson's rule on [-9, 9].
 */
export function intervalVariances(
  thresholds: readonly number[],
  x: number,
  sdStep: number,
  sdRest: number,
  intervals = 600,
): number[] {
  const now = cumulative(thresholds, x, Math.hypot(sdStep, sdRest));
  const n = now.length;
  const out = new Array<number>(n).fill(0);
  const lo = -9;
  const h = 18 / intervals;
  for (let i = 0; i <= intervals; i++) {
    const z = lo + i * h;
    const weight =
      (i === 0 || i === intervals ? 1 : i % 2 === 1 ? 4 : 2) *
      (h / 3) *
      (Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI));
    const later = cumulative(thresholds, x + sdStep * z, sdRest);
    for (let j = 0; j < n; j++) out[j] = (out[j] as number) + weight * ((later[j] as number) - (now[j] as number)) ** 2;
  }
  return out;
}

/** Leg probabilities of the intervals between thresholds for a state at x with standard deviation sd to resolution. */
export function cumulative(thresholds: readonly number[], x: number, sd: number): number[] {
  const c = thresholds.map((e) => phi((e - x) / sd));
  return [...c, 1].map((ck, i) => ck - (i === 0 ? 0 : (c[i - 1] as number)));
}
