import { devig, type DevigMethod } from "../devig";
import type { ClockEstimate } from "./types";
import type { LegShape } from "./attribution";
import {
  diffusionVariance,
  diffusionVarianceAt,
  horizonFraction,
  linearVariance,
  varianceToResolution,
} from "./diffusion-share";
import { normInv } from "./normal";
import { floorPartition, orderedLegVariance, orderedThresholds, type PartitionOrder } from "./ordered";

export type ShareKind = "diffusion" | "linear";

/** 10,000: probability^2 to points^2. */
export const PTS2 = 10_000;

/**
 * A probability vector ready for tenor variances: the one-tick floor applied (`p` is what the
 * variances use), each leg's a = Phi^-1(p) computed once and, for an ordered partition, the
 * thresholds of the cumulative probabilities in leg order.
 */
export interface PreparedPartition {
  p: readonly number[];
  a: readonly number[];
  days: readonly (number | null)[];
  budget: number;
  order: PartitionOrder;
  /** ordered: Phi^-1 of the cumulative probability below leg j and up to it */
  lo: readonly number[];
  hi: readonly number[];
}

export function preparePartition(
  raw: readonly number[],
  days: readonly (number | null)[],
  order: PartitionOrder = "unordered",
  /** the one-tick floor (vol-2.0 on); false recomputes values of earlier methodology versions */
  floor = true,
): PreparedPartition {
  const p = floor ? floorPartition(raw) : [...raw];
  const { lo, hi } = order === "ordered" ? orderedThresholds(p) : { lo: [], hi: [] };
  return {
    p,
    a: p.map((pj) => (pj > 0 && pj < 1 ? normInv(pj) : 0)),
    days,
    budget: partitionBudget(p),
    order,
    lo,
    hi,
  };
}

/** One leg's variance within a tenor (probability^2); unknown settlement counts as settling inside it. */
export function legTenorVariance(
  part: PreparedPartition,
  j: number,
  tenorDays: number,
  speed: number,
  kind: ShareKind,
): number {
  const p = part.p[j] as number;
  const days = part.days[j] ?? null;
  const rho = days === null ? 1 : horizonFraction(tenorDays, days, speed);
  if (kind === "linear") return linearVariance(p, rho);
  if (part.order === "ordered") return orderedLegVariance(part.lo[j] as number, part.hi[j] as number, p, rho);
  return diffusionVarianceAt(p, part.a[j] as number, rho);
}

/** Leg j's thresholds in an ordered partition (undefined for an unordered one): the attribution's price factor. */
export function legShape(part: PreparedPartition, j: number): LegShape | undefined {
  return part.order === "ordered" ? { lo: part.lo[j] as number, hi: part.hi[j] as number } : undefined;
}

/** One leg's diffusion variance at the horizon fraction rho: the cumulative form when it has a shape, else as a binary. */
export function legVarianceAt(p: number, shape: LegShape | undefined, rho: number): number {
  return shape === undefined ? diffusionVariance(p, rho) : orderedLegVariance(shape.lo, shape.hi, p, rho);
}

/** The partition's variance within a tenor: legs add in total variance, each on its own horizon. */
export function partitionTenorVariance(
  part: PreparedPartition,
  tenorDays: number,
  speed: number,
  kind: ShareKind,
): number {
  let sum = 0;
  for (let j = 0; j < part.p.length; j++) sum += legTenorVariance(part, j, tenorDays, speed, kind);
  return sum;
}

/** V = sum of p_j (1 - p_j), probability^2. */
export function partitionBudget(ps: readonly number[]): number {
  return ps.reduce((sum, p) => sum + varianceToResolution(p), 0);
}

export interface QuoteVectors {
  mid: number[];
  bid: number[];
  ask: number[];
}

export interface Scenario {
  side: "mid" | "bid" | "ask";
  method: DevigMethod;
  p: number[];
}

/** Probability vectors for the envelope: bid-, mid- and ask-side inputs under three de-vig methods. */
export function devigScenarios(q: QuoteVectors): Scenario[] {
  const out: Scenario[] = [];
  for (const side of ["mid", "bid", "ask"] as const) {
    for (const method of ["multiplicative", "power", "shin"] as const) {
      const p = devig(method, q[side]);
      if (p !== null) out.push({ side, method, p });
    }
  }
  return out;
}

export interface Envelope {
  ptsLo: number;
  ptsHi: number;
  shareLo: number;
  shareHi: number;
  shareAvailable: boolean;
}

/** Envelope of a tenor's pts and share across inputs, de-vig methods, diffusion vs linear and the clock interval. */
export function tenorEnvelope(
  scenarios: readonly PreparedPartition[],
  tenorDays: number,
  clock: ClockEstimate,
): Envelope {
  // the calendar tier runs at the prior speed, with the prior's interval
  const speeds = [clock.speed, clock.speedLo, clock.speedHi];
  let ptsLo = Number.POSITIVE_INFINITY;
  let ptsHi = Number.NEGATIVE_INFINITY;
  let shareLo = Number.POSITIVE_INFINITY;
  let shareHi = Number.NEGATIVE_INFINITY;
  for (const part of scenarios) {
    for (const speed of speeds) {
      for (const kind of ["diffusion", "linear"] as const) {
        const v = partitionTenorVariance(part, tenorDays, speed, kind);
        const pts = 100 * Math.sqrt(v);
        ptsLo = Math.min(ptsLo, pts);
        ptsHi = Math.max(ptsHi, pts);
        if (part.budget > 0) {
          shareLo = Math.min(shareLo, v / part.budget);
          shareHi = Math.max(shareHi, v / part.budget);
        }
      }
    }
  }
  const shareAvailable = Number.isFinite(shareLo);
  return {
    ptsLo: Number.isFinite(ptsLo) ? ptsLo : 0,
    ptsHi: Number.isFinite(ptsHi) ? ptsHi : 0,
    shareLo: shareAvailable ? shareLo : 0,
    shareHi: shareAvailable ? shareHi : 0,
    shareAvailable,
  };
}
