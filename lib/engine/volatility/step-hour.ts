import { devigMultiplicative } from "../devig";
import { estimateClock, publishedClock } from "./clock";
import { horizonFraction, varianceToResolution } from "./diffusion-share";
import type { LegQuote } from "./legs";
import type { PartitionOrder } from "./ordered";
import { withCalendarPrior } from "./prior";
import { round6 } from "./round";
import {
  devigScenarios,
  legTenorVariance,
  partitionTenorVariance,
  preparePartition,
  tenorEnvelope,
  type Envelope,
  type PreparedPartition,
  type Scenario,
} from "./tenor-variance";
import type { ClockEstimate, TenorValue, Tier, VolSeriesDefinition, VolState } from "./types";

/** The hour's partition: the quoted legs, their de-vigged probabilities and the variance budget. */
export interface HourPartition {
  /** every leg of the definition in force at t, quoted or not */
  quotes: readonly LegQuote[];
  /** the quoted legs */
  live: readonly LegQuote[];
  mids: number[];
  /** de-vigged probabilities of the quoted legs */
  p: number[];
  days: Array<number | null>;
  n: number;
  H: number;
  order: PartitionOrder;
  part: PreparedPartition;
  budget: number;
  budgetShares: number[];
  sumP2: number;
  /** position in `live` of a quoted leg, by condition id */
  liveIndex: Map<string, number>;
}

/** One tenor's value: published (rounded), its legs' variances, its points unrounded and its envelope. */
export interface TenorResult {
  value: TenorValue;
  legs: number[];
  pts: number;
  env: Envelope;
}

/** The tenors of the hour: the clock of each, their values, the headline and the tiers. */
export interface HourTenors {
  tenorList: number[];
  clockOf: (tau: number) => ClockEstimate;
  rawScenarios: Scenario[];
  tenorResults: Map<number, TenorResult>;
  headline: TenorResult;
  headlinePts: number;
  tenors: Record<string, TenorValue>;
  tiers: Record<string, Tier>;
  /** the headline tenor's clock speed */
  speedH: number;
}

/** De-vigs the quoted legs and prepares the partition: floor, thresholds, budget and each leg's share of it. */
export function partitionOf(
  def: VolSeriesDefinition,
  quotes: readonly LegQuote[],
  live: readonly LegQuote[],
  mids: number[],
  p: number[],
): HourPartition {
  const days = live.map((q) => q.days);
  const order: PartitionOrder = def.partitionOrder ?? "unordered";
  const part = preparePartition(p, days, order);
  const budget = part.budget;
  return {
    quotes,
    live,
    mids,
    p,
    days,
    n: live.length,
    H: def.headlineTenorDays,
    order,
    part,
    budget,
    budgetShares: part.p.map((pj) => (budget > 0 ? varianceToResolution(pj) / budget : 0)),
    sumP2: p.reduce((s, pj) => s + pj * pj, 0),
    liveIndex: new Map(live.map((q, j) => [q.conditionId, j])),
  };
}

/** A tenor's share is a mixture when live legs sit at different fractions of their own horizons. */
function horizonsDiffer(h: HourPartition, tau: number, speed: number): boolean {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  h.live.forEach((q, j) => {
    const pj = h.p[j] as number;
    if (pj <= 0 || pj >= 1) return;
    const rho = q.days === null ? 1 : horizonFraction(tau, q.days, speed);
    lo = Math.min(lo, rho);
    hi = Math.max(hi, rho);
  });
  return hi - lo > 1e-6;
}

/** One tenor's points, share and share interval, from the legs' variances at the tenor's clock. */
function tenorValue(h: HourPartition, scenarios: PreparedPartition[], tau: number, clock: ClockEstimate): TenorResult {
  const legs = h.p.map((_, j) => legTenorVariance(h.part, j, tau, clock.speed, "diffusion"));
  const v = legs.reduce((s, x) => s + x, 0);
  const share = h.budget > 0 ? v / h.budget : 0;
  const env = tenorEnvelope(scenarios, tau, clock);
  const available = env.shareAvailable && h.budget > 0;
  return {
    pts: 100 * Math.sqrt(v),
    legs,
    env,
    value: {
      pts: round6(100 * Math.sqrt(v)),
      share: round6(share),
      share_ci: available ? [round6(Math.min(env.shareLo, share)), round6(Math.max(env.shareHi, share))] : null,
      share_meta: { ci_unavailable: !available, mixture: horizonsDiffer(h, tau, clock.speed) },
    },
  };
}

/** The clock of every tenor from the series' history before t, and every tenor's value at it. */
export function tenorsOf(def: VolSeriesDefinition, current: VolState, t: Date, h: HourPartition): HourTenors {
  const tenorList = [...new Set([...def.tenorsDays, h.H])];
  // the calendar tier at its prior, as published (six decimals), and used so: a verifier recomputes every tenor from the published digits
  const clocks = new Map(
    tenorList.map((tau) => [tau, publishedClock(withCalendarPrior(estimateClock(current.clock, t, tau), h.order))]),
  );
  const clockOf = (tau: number) => clocks.get(tau) as ClockEstimate;
  const rawScenarios = devigScenarios({ mid: h.mids, bid: h.live.map((q) => q.bid), ask: h.live.map((q) => q.ask) });
  const scenarios = rawScenarios.map((s) => preparePartition(s.p, h.days, h.order));
  const tenorResults = new Map(tenorList.map((tau) => [tau, tenorValue(h, scenarios, tau, clockOf(tau))]));
  const headline = tenorResults.get(h.H) as TenorResult;
  const tenors = Object.fromEntries(
    def.tenorsDays.map((tau) => [String(tau), (tenorResults.get(tau) as TenorResult).value]),
  );
  const tiers: Record<string, Tier> = Object.fromEntries([
    ...def.tenorsDays.map((tau): [string, Tier] => [String(tau), clockOf(tau).tier]),
    ["R", "budget-implied"] as [string, Tier],
  ]);
  return {
    tenorList,
    clockOf,
    rawScenarios,
    tenorResults,
    headline,
    headlinePts: headline.pts,
    tenors,
    tiers,
    speedH: clockOf(h.H).speed,
  };
}

/** Per quoted leg: the largest move of the headline when the leg is quoted at its bid or ask instead of its mid. */
export function bidAskImpact(h: HourPartition, tn: HourTenors): number[] {
  return h.live.map((q, j) => {
    if (q.resolved) return 0;
    return Math.max(
      ...[q.bid, q.ask].map((side) => {
        const moved = devigMultiplicative(h.mids.map((m, i) => (i === j ? side : m)));
        return moved === null
          ? 0
          : Math.abs(
              100 *
                Math.sqrt(
                  partitionTenorVariance(preparePartition(moved, h.days, h.order), h.H, tn.speedH, "diffusion"),
                ) -
                tn.headlinePts,
            );
      }),
    );
  });
}

/** The leg whose multiplicative and power de-vig differ most, and by how much (null without a power de-vig). */
export function devigGapOf(h: HourPartition, tn: HourTenors): { legKey: string; gap: number } | null {
  const powerP = tn.rawScenarios.find((s) => s.side === "mid" && s.method === "power")?.p ?? null;
  return powerP === null
    ? null
    : h.p.reduce<{ legKey: string; gap: number } | null>((worst, pj, j) => {
        const gap = Math.abs(pj - (powerP[j] as number));
        return worst === null || gap > worst.gap ? { legKey: (h.live[j] as LegQuote).legKey, gap } : worst;
      }, null);
}
