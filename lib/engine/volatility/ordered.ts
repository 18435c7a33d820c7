import { bivariateNormalCdf, normInv } from "./normal";

// Ordered partitions: the legs are consecutive intervals of one diffusing state (rate buckets, price
// ranges, counts). Leg j is the interval between the thresholds a = Phi^-1(C_{j-1}) and
// b = Phi^-1(C_j) of the cumulative probabilities in leg order, and the variance of its probability
// realized over the fraction rho of the time left is
//   Phi2(b, b; rho) - 2 Phi2(a, b; rho) + Phi2(a, a; rho) - p_j^2.

/** How a partition's legs relate: consecutive intervals of one quantity, or outcomes with no order. */
export type PartitionOrder = "ordered" | "unordered";

/**
 * The one-tick floor: a leg whose de-vigged probability is below this is at the venues' quoting floor
 * (a book at one tick either side of zero says "about 0", not 0.2%): it counts as 0 in every variance
 * and the other legs are rescaled to sum 1.
 */
export const FLOOR_P = 0.005;

/** The probabilities the variances use: legs below the floor at 0, the rest rescaled to sum 1 (unchanged when none is below). */
export function floorPartition(p: readonly number[]): number[] {
  if (!p.some((pj) => pj > 0 && pj < FLOOR_P)) return [...p];
  const kept = p.map((pj) => (pj < FLOOR_P ? 0 : pj));
  const total = kept.reduce((s, x) => s + x, 0);
  return total > 0 ? kept.map((x) => x / total) : [...p];
}

/** Thresholds Phi^-1 of the cumulative probabilities below each leg (lo) and up to it (hi), in leg order; exact +-inf at 0 and 1. */
export function orderedThresholds(p: readonly number[]): { lo: number[]; hi: number[] } {
  const lo: number[] = [];
  const hi: number[] = [];
  let below = 0;
  p.forEach((pj, j) => {
    const upTo = j === p.length - 1 ? 1 : Math.min(1, below + pj);
    lo.push(thresholdOf(below));
    hi.push(thresholdOf(upTo));
    below = upTo;
  });
  return { lo, hi };
}

function thresholdOf(c: number): number {
  if (c <= 0) return Number.NEGATIVE_INFINITY;
  if (c >= 1) return Number.POSITIVE_INFINITY;
  return normInv(c);
}

// Gauss-Legendre 20-point half-rule (abscissae in (0, 1), weights), for the integral form.
const GL20_X = [
  0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188, 0.7463319064601508, 0.636053680726515,
  0.5108670019508271, 0.3737060887154196, 0.2277858511416451, 0.07652652113349733,
];
const GL20_W = [
  0.01761400713915212, 0.04060142980038694, 0.06267204833410906, 0.08327674157670475, 0.1019301198172404,
  0.1181945319615184, 0.1316886384491766, 0.1420961093183821, 0.1491729864726037, 0.1527533871307259,
];

/** Above this horizon fraction the closed form in Phi2 is used (the variance is large there: no cancellation). */
const INTEGRAL_RHO_MAX = 0.5;

/** exp(-(x^2 - 2 s x y + y^2) / (2 (1 - s^2))): the bivariate density kernel; 0 when a threshold is infinite. */
function kernelAt(x: number, y: number, s: number): number {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return 0;
  return Math.exp(-(x * x - 2 * s * x * y + y * y) / (2 * (1 - s * s)));
}

/**
 * Variance of leg j's probability realized within the horizon fraction rho, given its thresholds
 * a < b (a = -inf for the first leg, b = +inf for the last) and p = Phi(b) - Phi(a).
 * For rho <= 0.5 it is the integral over r in [0, rho] of the derivative of the Phi2 terms
 * in r (r = sin u): (1 / 2pi) * integral over [0, asin rho] of K(b,b) - 2 K(a,b) + K(a,a) du, evaluated
 * directly with no cancellation against p^2; above, the closed form.
 */
export function orderedLegVariance(a: number, b: number, p: number, rho: number): number {
  if (p <= 0 || p >= 1 || rho <= 0) return 0;
  if (rho >= 1) return p * (1 - p);
  let v: number;
  if (rho <= INTEGRAL_RHO_MAX) {
    const half = Math.asin(rho) / 2;
    let sum = 0;
    for (let i = 0; i < GL20_X.length; i++) {
      const w = GL20_W[i] as number;
      const xi = GL20_X[i] as number;
      for (const s of [Math.sin(half * (1 - xi)), Math.sin(half * (1 + xi))]) {
        sum += w * (kernelAt(b, b, s) - 2 * kernelAt(a, b, s) + kernelAt(a, a, s));
      }
    }
    v = (sum * half) / (2 * Math.PI);
  } else {
    v = phi2(b, b, rho) - 2 * phi2(a, b, rho) + phi2(a, a, rho) - p * p;
  }
  return Math.min(p * (1 - p), Math.max(0, v));
}

/** Phi2 with the infinite limits exact: Phi2(x, -inf) = 0, Phi2(x, +inf) = Phi(x), Phi2(+inf, +inf) = 1. */
function phi2(x: number, y: number, r: number): number {
  if (x === Number.NEGATIVE_INFINITY || y === Number.NEGATIVE_INFINITY) return 0;
  return bivariateNormalCdf(x, y, r);
}
