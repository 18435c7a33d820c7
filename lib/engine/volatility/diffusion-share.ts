import { GAUSS_LEGENDRE_12, normInv } from "./normal";

// Archak-Ipeirotis diffusion: price = Phi(Brownian state / sqrt(time left)); a = Phi^-1(p).

/** Variance to resolution of a binary at probability p: p(1 - p). */
export function varianceToResolution(p: number): number {
  return p <= 0 || p >= 1 ? 0 : p * (1 - p);
}

// Quadrature nodes per horizon fraction; the same fractions recur across legs, inputs and tenors.
const KERNEL_LIMIT = 4096;
const kernels = new Map<number, Float64Array>();

let lastRho = Number.NaN;
let lastKernel: Float64Array = new Float64Array(0);

/** Entry 0: half of asin(rho); then 1 + sin(node) for the 12 Gauss-Legendre nodes on [0, asin rho]. */
function kernel(rho: number): Float64Array {
  if (rho === lastRho) return lastKernel;
  const hit = kernels.get(rho) ?? makeKernel(rho);
  lastRho = rho;
  lastKernel = hit;
  return hit;
}

function makeKernel(rho: number): Float64Array {
  if (kernels.size >= KERNEL_LIMIT) kernels.clear();
  const { x } = GAUSS_LEGENDRE_12;
  const half = Math.asin(rho) / 2;
  const out = new Float64Array(1 + 2 * x.length);
  out[0] = half;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] as number;
    out[1 + 2 * i] = 1 + Math.sin(half * (1 - xi));
    out[2 + 2 * i] = 1 + Math.sin(half * (1 + xi));
  }
  kernels.set(rho, out);
  return out;
}

/**
 * Variance realized within a horizon that is the fraction rho of the time left, given a = Phi^-1(p):
 * Phi2(a, a; rho) - p^2 = (1 / 2pi) * integral over [0, asin rho] of exp(-a^2 / (1 + sin t)) dt.
 * Evaluated directly (no cancellation against p^2); 12-point Gauss-Legendre is exact to ~1e-14 relative.
 */
export function diffusionVarianceAt(p: number, a: number, rho: number): number {
  if (p <= 0 || p >= 1 || rho <= 0) return 0;
  if (rho >= 1) return p * (1 - p);
  const a2 = a * a;
  const k = kernel(rho);
  const { w } = GAUSS_LEGENDRE_12;
  let sum = 0;
  for (let i = 0; i < w.length; i++) {
    sum += (w[i] as number) * (Math.exp(-a2 / (k[1 + 2 * i] as number)) + Math.exp(-a2 / (k[2 + 2 * i] as number)));
  }
  return Math.min(p * (1 - p), (sum * (k[0] as number)) / (2 * Math.PI));
}

/** Diffusion variance within the horizon fraction rho (the budget-implied share times p(1 - p)). */
export function diffusionVariance(p: number, rho: number): number {
  if (p <= 0 || p >= 1 || rho <= 0) return 0;
  return diffusionVarianceAt(p, normInv(p), rho);
}

/** Linear share of the variance (an upper bound of the diffusion share): p(1 - p) * min(1, rho). */
export function linearVariance(p: number, rho: number): number {
  return varianceToResolution(p) * Math.min(1, Math.max(0, rho));
}

/**
 * Fraction of the remaining clock a tenor covers. With calendar fraction x = tenor / time left, a
 * clock running `clockSpeed` times the calendar now is mapped by rho = s x / (1 + (s - 1) x): slope
 * s at x = 0, identity at s = 1, continuous and increasing, and exactly 1 at x = 1, because an
 * event that must resolve inside the tenor realizes all of its remaining variance there.
 */
export function horizonFraction(tenorDays: number, daysToSettlement: number, clockSpeed = 1): number {
  if (daysToSettlement <= 0) return 1;
  const x = tenorDays / daysToSettlement;
  if (x >= 1) return 1;
  if (x <= 0) return 0;
  if (clockSpeed === 1) return x;
  return Math.min(1, (clockSpeed * x) / (1 + (clockSpeed - 1) * x));
}
