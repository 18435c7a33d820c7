import type { Snapshot } from "../types";
import { devigMultiplicative } from "../devig";
import { formatMicros, isoDate } from "../time-format";
import { attributeLegs, type AttributionLegInput, type LegClock, type LegShape } from "./attribution";
import type { PartitionOrder } from "./ordered";
import { addClockIncrement, estimateClock, publishedClock } from "./clock";
import { fsum } from "../fsum";
import {
  CALENDAR_CLOCK_VERSION,
  DEVIG_VERSION,
  HISTORICAL_CLOCK_VERSION,
  computeCounterfactual,
  fingerprintOf,
  inceptionConfigOf,
} from "./counterfactual";
import { horizonFraction, varianceToResolution } from "./diffusion-share";
import { decimalSum, evaluateGates, identityHolds, type AttributionIdentity, type GateLeg } from "./gates";
import { collectLegQuotes, type LegQuote } from "./legs";
import { withCalendarPrior } from "./prior";
import { round6 } from "./round";
import {
  PTS2,
  devigScenarios,
  legShape,
  legTenorVariance,
  legVarianceAt,
  partitionTenorVariance,
  preparePartition,
  tenorEnvelope,
  type Envelope,
  type PreparedPartition,
} from "./tenor-variance";
import type {
  Attribution,
  ClockEstimate,
  Component,
  PrevLeg,
  TenorValue,
  Tier,
  VolSeriesDefinition,
  VolState,
  VolStepResult,
  VolTick,
} from "./types";

/** Clock increments are taken only between ticks at most this far apart. */
const MAX_CLOCK_GAP_MS = 3 * 3_600_000;

function initialState(def: VolSeriesDefinition, t: Date): VolState {
  const config = inceptionConfigOf(def, t);
  return {
    ticker: def.ticker,
    inception: { config, fingerprint: fingerprintOf(config) },
    prev: null,
    clock: [],
    composition: { number: 0, legKeys: [] },
    degradedStreak: 0,
    tickCount: 0,
    retiredAt: null,
    retiredReason: null,
  };
}

function sameLegs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function retire(state: VolState, t: Date, reason: string): VolStepResult {
  return { state: { ...state, retiredAt: t.toISOString(), retiredReason: reason }, tick: null };
}

/** Headline-tenor variance of one leg in points^2: the function the attribution splits. */
function headlineLegPts2(tenorDays: number) {
  return (p: number, clock: LegClock, shape?: LegShape) =>
    PTS2 * legVarianceAt(p, shape, clock.days === null ? 1 : horizonFraction(tenorDays, clock.days, clock.speed));
}

/** The previous computation's legs as the variances saw them (floor applied, thresholds in leg order). */
function preparedPrev(prev: { legs: readonly PrevLeg[] }, order: PartitionOrder): PreparedPartition {
  return preparePartition(
    prev.legs.map((l) => l.p),
    prev.legs.map((l) => l.daysToSettlement),
    order,
  );
}

function disclosure(
  legs: readonly LegQuote[],
  tiers: Record<string, Tier>,
  clocks: Map<number, ClockEstimate>,
): string {
  const dates = [...new Set(legs.map((l) => (l.settlement === null ? Number.NaN : l.settlement.getTime())))].map(
    (ms) => (Number.isNaN(ms) ? "an unknown date" : isoDate(new Date(ms))),
  );
  const settle =
    dates.length === 1
      ? `All ${legs.length} legs settle on ${dates[0]} and share one clock`
      : `Legs settle on ${dates.length} different dates; each leg's share uses its own horizon and variances add in total variance`;
  const historical = [...clocks.entries()].filter(([, c]) => c.tier === "historical-clock");
  const calendar = Object.keys(tiers).filter((k) => k !== "R" && tiers[k] === "budget-implied");
  if (historical.length === 0) return `${settle}: calendar time (budget-implied shares).`;
  const parts = historical.map(
    ([tau, c]) => `${tau}d at ${c.speed.toFixed(2)}x calendar speed over ${c.windowDays} days`,
  );
  const rest = calendar.length > 0 ? `; calendar time for ${calendar.map((k) => `${k}d`).join(", ")}` : "";
  return `${settle}: the series' realized-variance clock for ${parts.join(", ")}${rest}.`;
}

/** A leg's quote as the inputs store it (what the bundle's leg files print). */
function quoteInput(q: LegQuote) {
  return {
    bid: q.bid,
    ask: q.ask,
    mid: q.mid,
    depthUsd: q.depthUsd,
    ...(q.fromHistory ? { source: "history" as const } : {}),
    observedAt: q.observedAt === null ? null : q.observedAt.toISOString(),
    settlementAt: q.settlement === null ? null : q.settlement.toISOString(),
    daysToSettlement: q.days,
    resolved: q.resolved,
  };
}

function fbvRLabel(legs: readonly LegQuote[]): string {
  const days = legs.map((l) => l.days).filter((d): d is number => d !== null);
  const settlements = legs.map((l) => l.settlement).filter((d): d is Date => d !== null);
  if (days.length === 0 || settlements.length === 0)
    return "remaining uncertainty to resolution (settlement date unknown)";
  const last = new Date(Math.max(...settlements.map((d) => d.getTime())));
  return `remaining uncertainty to resolution (${Math.max(0, Math.max(...days)).toFixed(1)} days, settles ${isoDate(last)})`;
}

/**
 * Computes one tick of a composite-of-partition series at t from the latest snapshot of each leg
 * at or before t. Returns tick null once the series is retired (resolved, or too many degraded ticks).
 */
export function stepVolatility(
  def: VolSeriesDefinition,
  state: VolState | null,
  t: Date,
  legSnapshots: readonly Snapshot[],
): VolStepResult {
  const current = state ?? initialState(def, t);
  if (current.retiredAt !== null) return { state: current, tick: null };
  if (current.prev !== null && t.getTime() <= new Date(current.prev.computedAt).getTime()) {
    throw new RangeError(`${def.ticker}: tick ${t.toISOString()} is not after ${current.prev.computedAt}`);
  }
  const quotes = collectLegQuotes(def, t, legSnapshots);
  if (quotes.some((q) => q.resolved && q.outcome === 1)) return retire(current, t, "resolved");
  const live = quotes.filter((q) => q.observedAt !== null);
  const mids = live.map((q) => q.mid);
  const pMaybe = devigMultiplicative(mids);
  if (live.length === 0 || pMaybe === null) {
    // nothing to price: no tick, but the hour counts as degraded
    const streak = current.degradedStreak + 1;
    const next = { ...current, degradedStreak: streak };
    return streak >= def.gates.retireAfterDegradedTicks ? retire(next, t, "degraded") : { state: next, tick: null };
  }
  const p = pMaybe;
  const days = live.map((q) => q.days);
  const n = live.length;
  const H = def.headlineTenorDays;
  const order: PartitionOrder = def.partitionOrder ?? "unordered";

  // composition: the quoted legs; a change starts a new version
  const legKeys = live.map((q) => q.legKey);
  const sameComposition =
    legKeys.length === current.composition.legKeys.length &&
    legKeys.every((k, i) => k === current.composition.legKeys[i]);
  const composition = sameComposition ? current.composition : { number: current.composition.number + 1, legKeys };
  const compositionVersion = `v${composition.number}`;

  // budget
  const part = preparePartition(p, days, order);
  const budget = part.budget;
  const budgetShares = part.p.map((pj) => (budget > 0 ? varianceToResolution(pj) / budget : 0));
  const sumP2 = p.reduce((s, pj) => s + pj * pj, 0);

  // clock per tenor from the history before t
  const tenorList = [...new Set([...def.tenorsDays, H])];
  // the calendar tier at its prior, as published (six decimals), and used so: a verifier recomputes every tenor from the published digits
  const clocks = new Map(
    tenorList.map((tau) => [tau, publishedClock(withCalendarPrior(estimateClock(current.clock, t, tau), order))]),
  );
  const clockOf = (tau: number) => clocks.get(tau) as ClockEstimate;
  const rawScenarios = devigScenarios({ mid: mids, bid: live.map((q) => q.bid), ask: live.map((q) => q.ask) });
  const scenarios = rawScenarios.map((s) => preparePartition(s.p, days, order));

  const legVar = (tau: number) => p.map((_, j) => legTenorVariance(part, j, tau, clockOf(tau).speed, "diffusion"));
  // a tenor's share is a mixture when live legs sit at different fractions of their own horizons
  const horizonsDiffer = (tau: number) => {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    live.forEach((q, j) => {
      const pj = p[j] as number;
      if (pj <= 0 || pj >= 1) return;
      const rho = q.days === null ? 1 : horizonFraction(tau, q.days, clockOf(tau).speed);
      lo = Math.min(lo, rho);
      hi = Math.max(hi, rho);
    });
    return hi - lo > 1e-6;
  };
  const tenorValue = (tau: number): { value: TenorValue; legs: number[]; pts: number; env: Envelope } => {
    const legs = legVar(tau);
    const v = legs.reduce((s, x) => s + x, 0);
    const share = budget > 0 ? v / budget : 0;
    const env = tenorEnvelope(scenarios, tau, clockOf(tau));
    const available = env.shareAvailable && budget > 0;
    return {
      pts: 100 * Math.sqrt(v),
      legs,
      env,
      value: {
        pts: round6(100 * Math.sqrt(v)),
        share: round6(share),
        share_ci: available ? [round6(Math.min(env.shareLo, share)), round6(Math.max(env.shareHi, share))] : null,
        share_meta: { ci_unavailable: !available, mixture: horizonsDiffer(tau) },
      },
    };
  };
  const tenorResults = new Map(tenorList.map((tau) => [tau, tenorValue(tau)]));
  const headline = tenorResults.get(H) as { value: TenorValue; legs: number[]; pts: number; env: Envelope };
  const headlinePts = headline.pts;
  const tenors = Object.fromEntries(
    def.tenorsDays.map((tau) => [String(tau), (tenorResults.get(tau) as { value: TenorValue }).value]),
  );
  const tiers: Record<string, Tier> = Object.fromEntries([
    ...def.tenorsDays.map((tau): [string, Tier] => [String(tau), clockOf(tau).tier]),
    ["R", "budget-implied"] as [string, Tier],
  ]);

  // band: envelope at the headline tenor, always containing the headline
  const headlineEnv = headline.env;
  const bandLoPts = Math.min(headlineEnv.ptsLo, headlinePts);
  const bandHiPts = Math.max(headlineEnv.ptsHi, headlinePts);

  // impact of quoting each leg at its bid or ask instead of its mid
  const speedH = clockOf(H).speed;
  const impact = live.map((q, j) => {
    if (q.resolved) return 0;
    return Math.max(
      ...[q.bid, q.ask].map((side) => {
        const moved = devigMultiplicative(mids.map((m, i) => (i === j ? side : m)));
        return moved === null
          ? 0
          : Math.abs(
              100 * Math.sqrt(partitionTenorVariance(preparePartition(moved, days, order), H, speedH, "diffusion")) -
                headlinePts,
            );
      }),
    );
  });

  const powerP = rawScenarios.find((s) => s.side === "mid" && s.method === "power")?.p ?? null;
  const devigGap =
    powerP === null
      ? null
      : p.reduce<{ legKey: string; gap: number } | null>((worst, pj, j) => {
          const gap = Math.abs(pj - (powerP[j] as number));
          return worst === null || gap > worst.gap ? { legKey: (live[j] as LegQuote).legKey, gap } : worst;
        }, null);

  // attribution against the previous tick
  const prev = current.prev;
  const clockNow: LegClock[] = days.map((d) => ({ days: d, speed: speedH }));
  let attribution: Attribution;
  let identity: AttributionIdentity | null = null;
  if (prev === null) {
    attribution = {
      deltaPts: 0,
      deltaPts2: 0,
      gapSeconds: null,
      legs: [],
      prevComputedAt: null,
      reason: "first_tick",
      status: "unavailable",
      tenorDays: H,
      units: "points squared",
      unitsPts: "points",
    };
  } else {
    const prevPart = preparedPrev(prev, order);
    const prevById = new Map(
      prev.legs.map((l, i) => [l.conditionId, { ...l, p: prevPart.p[i] as number, shape: legShape(prevPart, i) }]),
    );
    const nowById = new Map(live.map((q, j) => [q.conditionId, j]));
    const ids = [...new Set([...live.map((q) => q.conditionId), ...prev.legs.map((l) => l.conditionId)])];
    const inputs: AttributionLegInput[] = ids.map((id) => {
      const before = prevById.get(id);
      const j = nowById.get(id);
      const q = j === undefined ? undefined : live[j];
      const nowClock = j === undefined ? undefined : clockNow[j];
      const prevClock: LegClock | undefined =
        before === undefined ? undefined : { days: before.daysToSettlement, speed: prev.headlineClockSpeed };
      return {
        legKey: q?.legKey ?? before?.legKey ?? id,
        label: q?.label ?? before?.label ?? id,
        gridOrder: q?.gridOrder ?? before?.gridOrder ?? -1,
        p0: before?.p ?? 0,
        p1: j === undefined ? 0 : (part.p[j] as number),
        clock0: prevClock ?? (nowClock as LegClock),
        clock1: nowClock ?? (prevClock as LegClock),
        shape0: before?.shape,
        shape1: j === undefined ? undefined : legShape(part, j),
      };
    });
    const splits = attributeLegs(inputs, headlineLegPts2(H)).sort((a, b) => a.gridOrder - b.gridOrder);
    const deltaPts2 = headlinePts * headlinePts - prev.headlinePts * prev.headlinePts;
    const legs = splits.map((s) => ({
      delta: round6(s.delta),
      deltaClock: round6(s.deltaClock),
      deltaPrice: round6(s.deltaPrice),
      gridOrder: s.gridOrder,
      label: s.label,
      legKey: s.legKey,
    }));
    identity = { deltaPts2: round6(deltaPts2), parts: legs.flatMap((l) => [l.deltaPrice, l.deltaClock]) };
    attribution = {
      deltaPts: round6(headlinePts - prev.headlinePts),
      deltaPts2: round6(deltaPts2),
      gapSeconds: Math.round((t.getTime() - new Date(prev.computedAt).getTime()) / 1000),
      legs,
      prevComputedAt: formatMicros(new Date(prev.computedAt), false),
      reason: null,
      status: identityHolds(identity, def.gates.identityTolerance) ? "ok" : "identity_breach",
      tenorDays: H,
      units: "points squared",
      unitsPts: "points",
    };
  }

  // components: one per leg of the definition, quoted or not
  const liveIndex = new Map(live.map((q, j) => [q.conditionId, j]));
  const partialComponents = quotes.map((q) => {
    const j = liveIndex.get(q.conditionId);
    const pj = j === undefined ? 0 : (p[j] as number);
    const tenorPts = Object.fromEntries(
      def.tenorsDays.map((tau) => [
        String(tau),
        j === undefined ? 0 : round6(100 * Math.sqrt((tenorResults.get(tau) as { legs: number[] }).legs[j] as number)),
      ]),
    );
    return {
      q,
      j,
      component: {
        leg_key: q.legKey,
        label: q.label,
        grid_order: q.gridOrder,
        condition_id: q.conditionId,
        books_used: q.observedAt === null || q.resolved ? 0 : 1,
        days_to_settlement: q.days === null ? null : round6(q.days),
        // the leg's remaining uncertainty as the budget counts it (0 below the one-tick floor)
        fbv_r_pts: round6(100 * Math.sqrt(j === undefined ? 0 : varianceToResolution(part.p[j] as number))),
        gate_flags: [] as string[],
        observed_at: q.observedAt === null ? null : formatMicros(q.observedAt, false),
        p: round6(pj),
        passes_depth: q.resolved || q.fromHistory || q.depthUsd >= def.gates.depthFloorUsd,
        tenor_pts: tenorPts,
        w: j === undefined ? 0 : round6(budgetShares[j] as number),
      } satisfies Component,
    };
  });

  // Pythagorean consistency of the published numbers: each pts^2 against the sum of its legs' pts^2
  const pythagorean = def.tenorsDays.map((tau) => ({
    tenorDays: tau,
    pts: (tenors[String(tau)] as TenorValue).pts,
    legPts: partialComponents.map((c) => c.component.tenor_pts[String(tau)] ?? 0),
  }));

  const gateLegs: GateLeg[] = quotes.map((q) => {
    const j = liveIndex.get(q.conditionId);
    return {
      legKey: q.legKey,
      label: q.label,
      bid: q.bid,
      ask: q.ask,
      mid: q.mid,
      depthUsd: q.depthUsd,
      fromHistory: q.fromHistory,
      observedAt: q.observedAt,
      resolved: q.resolved,
      budgetShare: j === undefined ? 0 : (budgetShares[j] as number),
      impactPts: j === undefined ? 0 : (impact[j] as number),
    };
  });
  const gates = evaluateGates({
    gates: def.gates,
    t,
    legs: gateLegs,
    devigGap,
    pythagorean,
    identity,
  });
  const components = partialComponents.map(({ component }) => ({
    ...component,
    gate_flags: gates.legGates[component.leg_key] ?? [],
  }));

  // the counterfactual prices the inception legs; those no longer in force are kept with the inputs
  const inceptionQuotes = sameLegs(current.inception.config.legs, def.legs)
    ? quotes
    : collectLegQuotes({ ...def, legs: current.inception.config.legs }, t, legSnapshots);
  const inForce = new Set(quotes.map((q) => q.conditionId));
  const departed = inceptionQuotes.filter((q) => !inForce.has(q.conditionId));

  const fbvRPts = 100 * Math.sqrt(budget);
  const usesHistorical = def.tenorsDays.some((tau) => clockOf(tau).tier === "historical-clock");
  const clockVersion = usesHistorical ? HISTORICAL_CLOCK_VERSION : CALENDAR_CLOCK_VERSION;
  const status = gates.status;
  const tick: VolTick = {
    seriesId: def.ticker,
    computedAt: t,
    headlinePts: round6(headlinePts),
    headlineTenorDays: H,
    tenors,
    bandLoPts: round6(bandLoPts),
    bandHiPts: round6(bandHiPts),
    attrDeltaHeadlinePts: attribution.deltaPts,
    attribution,
    budgetW: round6(budget),
    wTilde: round6(n > 1 ? budget / (1 - 1 / n) : 0),
    effectiveN: round6(sumP2 > 0 ? 1 / sumP2 : 0),
    sumRaw: round6(decimalSum(mids).toNumber()),
    fbvRPts: round6(fbvRPts),
    fbvRLabel: fbvRLabel(live),
    status,
    publicationState: status === "suspended" ? "withheld" : "published",
    revision: 0,
    gateFlags: gates.flags,
    components,
    counterfactual: computeCounterfactual(
      current.inception.config,
      current.inception.fingerprint,
      inceptionQuotes,
      order,
    ),
    labels: {
      clockHomogeneityDisclosure: disclosure(live, tiers, new Map(def.tenorsDays.map((tau) => [tau, clockOf(tau)]))),
      clockSpeed: Object.fromEntries(def.tenorsDays.map((tau) => [String(tau), clockOf(tau).speed])),
      composition: { leg_keys: legKeys, n, version: compositionVersion },
      devigVersion: DEVIG_VERSION,
      tier: tiers,
      attrDeltaFrom: prev === null ? null : formatMicros(new Date(prev.computedAt)),
      attrDeltaFromPublished: prev === null ? null : (prev.publicationState ?? "published") === "published",
    },
    clockVersion,
    devigVersion: DEVIG_VERSION,
    methodologyVersion: def.methodologyVersion,
    definitionLine: def.definitionLine,
    targetType: def.targetType,
    units: def.units,
    compositionVersion,
    inputs: {
      clock: Object.fromEntries(
        tenorList.map((tau) => {
          const c = clockOf(tau);
          return [
            String(tau),
            {
              tier: c.tier,
              speed: c.speed,
              speedLo: c.speedLo,
              speedHi: c.speedHi,
              windowDays: c.windowDays,
              coverage: c.coverage,
            },
          ];
        }),
      ),
      legs: quotes.map((q) => {
        const j = liveIndex.get(q.conditionId);
        return {
          conditionId: q.conditionId,
          legKey: q.legKey,
          label: q.label,
          gridOrder: q.gridOrder,
          ...quoteInput(q),
          p: j === undefined ? null : (p[j] as number),
          w: j === undefined ? null : (budgetShares[j] as number),
        };
      }),
      clockIncrement: null,
      counterfactualLegs: departed.map((q) => ({
        conditionId: q.conditionId,
        legKey: q.legKey,
        label: q.label,
        ...quoteInput(q),
      })),
    },
  };

  // clock increment: fresh quotes on every leg since the previous tick, same legs, short gap, not suspended
  let clock = current.clock;
  if (
    prev !== null &&
    status !== "suspended" &&
    t.getTime() - new Date(prev.computedAt).getTime() <= MAX_CLOCK_GAP_MS
  ) {
    const prevById = new Map(prev.legs.map((l) => [l.conditionId, l]));
    const dtDays = (t.getTime() - new Date(prev.computedAt).getTime()) / 86_400_000;
    const pairs = live.map((q, j) => ({ q, pj: p[j] as number, before: prevById.get(q.conditionId) }));
    const usable =
      pairs.length === prev.legs.length &&
      pairs.every(
        ({ q, before }) =>
          before !== undefined &&
          (q.resolved ||
            (before.observedAt !== null && (q.observedAt as Date).getTime() > new Date(before.observedAt).getTime())),
      );
    if (usable) {
      // the squared moves' sum correctly rounded (fsum), squares as x * x
      const realized = fsum(
        pairs.map(({ pj, before }) => {
          const d = pj - (before as PrevLeg).p;
          return d * d;
        }),
      );
      // the diffusion's prediction over dt from the previous legs: rho_j = min(dt / tau_j, 1)
      const predicted = partitionTenorVariance(preparedPrev(prev, order), dtDays, 1, "diffusion");
      clock = addClockIncrement(clock, t, realized, predicted);
      tick.inputs.clockIncrement = { realized, predicted };
    }
  }

  const degradedStreak = status === "ok" ? 0 : current.degradedStreak + 1;
  const nextState: VolState = {
    ...current,
    prev: {
      computedAt: t.toISOString(),
      publicationState: tick.publicationState,
      headlinePts,
      headlineClockSpeed: speedH,
      legs: live.map((q, j) => ({
        conditionId: q.conditionId,
        legKey: q.legKey,
        label: q.label,
        gridOrder: q.gridOrder,
        p: p[j] as number,
        daysToSettlement: q.days,
        observedAt: q.observedAt === null ? null : q.observedAt.toISOString(),
      })),
    },
    clock,
    composition,
    degradedStreak,
    tickCount: current.tickCount + 1,
  };
  if (degradedStreak >= def.gates.retireAfterDegradedTicks) {
    return { state: { ...nextState, retiredAt: t.toISOString(), retiredReason: "degraded" }, tick };
  }
  return { state: nextState, tick };
}
