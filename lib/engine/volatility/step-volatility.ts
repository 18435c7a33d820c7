import type { Snapshot } from "../types";
import { devigMultiplicative } from "../devig";
import { formatMicros, isoDate } from "../time-format";
import { addClockIncrement } from "./clock";
import { fsum } from "../fsum";
import {
  CALENDAR_CLOCK_VERSION,
  DEVIG_VERSION,
  HISTORICAL_CLOCK_VERSION,
  computeCounterfactual,
  fingerprintOf,
  inceptionConfigOf,
} from "./counterfactual";
import { varianceToResolution } from "./diffusion-share";
import { decimalSum, evaluateGates, type AttributionIdentity, type GateLeg, type GateResult } from "./gates";
import { collectLegQuotes, type LegQuote } from "./legs";
import { round6 } from "./round";
import { attributionOf, preparedPrev } from "./step-attribution";
import { bidAskImpact, devigGapOf, partitionOf, tenorsOf, type HourPartition, type HourTenors } from "./step-hour";
import { partitionTenorVariance } from "./tenor-variance";
import type {
  Attribution,
  ClockBucket,
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
  const p = devigMultiplicative(mids);
  if (live.length === 0 || p === null) return degradedHour(def, current, t);
  const h = partitionOf(def, quotes, live, mids, p);
  const tn = tenorsOf(def, current, t, h);
  const { attribution, identity } = attributionOf(def, current.prev, t, h, tn);
  const { components, gates } = componentsAndGates(def, t, h, tn, identity);
  const inceptionQuotes = sameLegs(current.inception.config.legs, def.legs)
    ? quotes
    : collectLegQuotes({ ...def, legs: current.inception.config.legs }, t, legSnapshots);
  const tick = tickOf(def, current, t, h, tn, { attribution, components, gates, inceptionQuotes });
  const clock = clockAfter(current, t, h, tick);
  return nextStateOf(def, current, t, h, tn, tick, clock);
}

/** Nothing to price: no tick, but the hour counts as degraded (and may retire the series). */
function degradedHour(def: VolSeriesDefinition, current: VolState, t: Date): VolStepResult {
  const streak = current.degradedStreak + 1;
  const next = { ...current, degradedStreak: streak };
  return streak >= def.gates.retireAfterDegradedTicks ? retire(next, t, "degraded") : { state: next, tick: null };
}

/** The composition: the quoted legs; a change starts a new version. */
function compositionOf(current: VolState, h: HourPartition): VolState["composition"] {
  const legKeys = h.live.map((q) => q.legKey);
  const sameComposition =
    legKeys.length === current.composition.legKeys.length &&
    legKeys.every((k, i) => k === current.composition.legKeys[i]);
  return sameComposition ? current.composition : { number: current.composition.number + 1, legKeys };
}

/** One component per leg of the definition, quoted or not, before the gates flag it. */
function componentOf(def: VolSeriesDefinition, h: HourPartition, tn: HourTenors, q: LegQuote): Component {
  const j = h.liveIndex.get(q.conditionId);
  const pj = j === undefined ? 0 : (h.p[j] as number);
  const tenorPts = Object.fromEntries(
    def.tenorsDays.map((tau) => [
      String(tau),
      j === undefined ? 0 : round6(100 * Math.sqrt((tn.tenorResults.get(tau) as { legs: number[] }).legs[j] as number)),
    ]),
  );
  return {
    leg_key: q.legKey,
    label: q.label,
    grid_order: q.gridOrder,
    condition_id: q.conditionId,
    books_used: q.observedAt === null || q.resolved ? 0 : 1,
    days_to_settlement: q.days === null ? null : round6(q.days),
    // the leg's remaining uncertainty as the budget counts it (0 below the one-tick floor)
    fbv_r_pts: round6(100 * Math.sqrt(j === undefined ? 0 : varianceToResolution(h.part.p[j] as number))),
    gate_flags: [] as string[],
    observed_at: q.observedAt === null ? null : formatMicros(q.observedAt, false),
    p: round6(pj),
    passes_depth: q.resolved || q.fromHistory || q.depthUsd >= def.gates.depthFloorUsd,
    tenor_pts: tenorPts,
    w: j === undefined ? 0 : round6(h.budgetShares[j] as number),
  } satisfies Component;
}

/** The components, the gates decided over them and the hour's quotes, and each component's failed gates. */
function componentsAndGates(
  def: VolSeriesDefinition,
  t: Date,
  h: HourPartition,
  tn: HourTenors,
  identity: AttributionIdentity | null,
): { components: Component[]; gates: GateResult } {
  const partial = h.quotes.map((q) => componentOf(def, h, tn, q));
  // Pythagorean consistency of the published numbers: each pts^2 against the sum of its legs' pts^2
  const pythagorean = def.tenorsDays.map((tau) => ({
    tenorDays: tau,
    pts: (tn.tenors[String(tau)] as TenorValue).pts,
    legPts: partial.map((c) => c.tenor_pts[String(tau)] ?? 0),
  }));
  const impact = bidAskImpact(h, tn);
  const gateLegs: GateLeg[] = h.quotes.map((q) => {
    const j = h.liveIndex.get(q.conditionId);
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
      budgetShare: j === undefined ? 0 : (h.budgetShares[j] as number),
      impactPts: j === undefined ? 0 : (impact[j] as number),
    };
  });
  const gates = evaluateGates({
    gates: def.gates,
    t,
    legs: gateLegs,
    devigGap: devigGapOf(h, tn),
    pythagorean,
    identity,
  });
  const components = partial.map((component) => ({
    ...component,
    gate_flags: gates.legGates[component.leg_key] ?? [],
  }));
  return { components, gates };
}

/** The inputs stored beside the tick: the clock per tenor, the leg panel and the departed inception legs. */
function tickInputs(h: HourPartition, tn: HourTenors, departed: readonly LegQuote[]): VolTick["inputs"] {
  return {
    clock: Object.fromEntries(
      tn.tenorList.map((tau) => {
        const c = tn.clockOf(tau);
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
    legs: h.quotes.map((q) => {
      const j = h.liveIndex.get(q.conditionId);
      return {
        conditionId: q.conditionId,
        legKey: q.legKey,
        label: q.label,
        gridOrder: q.gridOrder,
        ...quoteInput(q),
        p: j === undefined ? null : (h.p[j] as number),
        w: j === undefined ? null : (h.budgetShares[j] as number),
      };
    }),
    clockIncrement: null,
    counterfactualLegs: departed.map((q) => ({
      conditionId: q.conditionId,
      legKey: q.legKey,
      label: q.label,
      ...quoteInput(q),
    })),
  };
}

/** The published computation of the hour, from its partition, tenors, attribution and gates. */
function tickOf(
  def: VolSeriesDefinition,
  current: VolState,
  t: Date,
  h: HourPartition,
  tn: HourTenors,
  parts: { attribution: Attribution; components: Component[]; gates: GateResult; inceptionQuotes: LegQuote[] },
): VolTick {
  const { attribution, gates, inceptionQuotes } = parts;
  const prev = current.prev;
  const budget = h.budget;
  const composition = compositionOf(current, h);
  const compositionVersion = `v${composition.number}`;
  // the counterfactual prices the inception legs; those no longer in force are kept with the inputs
  const inForce = new Set(h.quotes.map((q) => q.conditionId));
  const departed = inceptionQuotes.filter((q) => !inForce.has(q.conditionId));
  const usesHistorical = def.tenorsDays.some((tau) => tn.clockOf(tau).tier === "historical-clock");
  const status = gates.status;
  return {
    seriesId: def.ticker,
    computedAt: t,
    headlinePts: round6(tn.headlinePts),
    headlineTenorDays: h.H,
    tenors: tn.tenors,
    // band: envelope at the headline tenor, always containing the headline
    bandLoPts: round6(Math.min(tn.headline.env.ptsLo, tn.headlinePts)),
    bandHiPts: round6(Math.max(tn.headline.env.ptsHi, tn.headlinePts)),
    attrDeltaHeadlinePts: attribution.deltaPts,
    attribution,
    budgetW: round6(budget),
    wTilde: round6(h.n > 1 ? budget / (1 - 1 / h.n) : 0),
    effectiveN: round6(h.sumP2 > 0 ? 1 / h.sumP2 : 0),
    sumRaw: round6(decimalSum(h.mids).toNumber()),
    fbvRPts: round6(100 * Math.sqrt(budget)),
    fbvRLabel: fbvRLabel(h.live),
    status,
    publicationState: status === "suspended" ? "withheld" : "published",
    revision: 0,
    gateFlags: gates.flags,
    components: parts.components,
    counterfactual: computeCounterfactual(
      current.inception.config,
      current.inception.fingerprint,
      inceptionQuotes,
      h.order,
    ),
    labels: {
      clockHomogeneityDisclosure: disclosure(
        h.live,
        tn.tiers,
        new Map(def.tenorsDays.map((tau) => [tau, tn.clockOf(tau)])),
      ),
      clockSpeed: Object.fromEntries(def.tenorsDays.map((tau) => [String(tau), tn.clockOf(tau).speed])),
      composition: { leg_keys: h.live.map((q) => q.legKey), n: h.n, version: compositionVersion },
      devigVersion: DEVIG_VERSION,
      tier: tn.tiers,
      attrDeltaFrom: prev === null ? null : formatMicros(new Date(prev.computedAt)),
      attrDeltaFromPublished: prev === null ? null : (prev.publicationState ?? "published") === "published",
    },
    clockVersion: usesHistorical ? HISTORICAL_CLOCK_VERSION : CALENDAR_CLOCK_VERSION,
    devigVersion: DEVIG_VERSION,
    methodologyVersion: def.methodologyVersion,
    definitionLine: def.definitionLine,
    targetType: def.targetType,
    units: def.units,
    compositionVersion,
    inputs: tickInputs(h, tn, departed),
  };
}

/**
 * The clock increment: fresh quotes on every leg since the previous tick, same legs, short gap, not
 * suspended. Returns the series' clock with it (and records it in the tick's inputs).
 */
function clockAfter(current: VolState, t: Date, h: HourPartition, tick: VolTick): ClockBucket[] {
  const prev = current.prev;
  if (
    prev === null ||
    tick.status === "suspended" ||
    t.getTime() - new Date(prev.computedAt).getTime() > MAX_CLOCK_GAP_MS
  )
    return current.clock;
  const prevById = new Map(prev.legs.map((l) => [l.conditionId, l]));
  const dtDays = (t.getTime() - new Date(prev.computedAt).getTime()) / 86_400_000;
  const pairs = h.live.map((q, j) => ({ q, pj: h.p[j] as number, before: prevById.get(q.conditionId) }));
  const usable =
    pairs.length === prev.legs.length &&
    pairs.every(
      ({ q, before }) =>
        before !== undefined &&
        (q.resolved ||
          (before.observedAt !== null && (q.observedAt as Date).getTime() > new Date(before.observedAt).getTime())),
    );
  if (!usable) return current.clock;
  // the squared moves' sum correctly rounded (fsum), squares as x * x
  const realized = fsum(
    pairs.map(({ pj, before }) => {
      const d = pj - (before as PrevLeg).p;
      return d * d;
    }),
  );
  // the diffusion's prediction over dt from the previous legs: rho_j = min(dt / tau_j, 1)
  const predicted = partitionTenorVariance(preparedPrev(prev, h.order), dtDays, 1, "diffusion");
  tick.inputs.clockIncrement = { realized, predicted };
  return addClockIncrement(current.clock, t, realized, predicted);
}

/** The state after the tick: this computation as the next one's previous, the clock, the composition, the degraded streak. */
function nextStateOf(
  def: VolSeriesDefinition,
  current: VolState,
  t: Date,
  h: HourPartition,
  tn: HourTenors,
  tick: VolTick,
  clock: ClockBucket[],
): VolStepResult {
  const degradedStreak = tick.status === "ok" ? 0 : current.degradedStreak + 1;
  const nextState: VolState = {
    ...current,
    prev: {
      computedAt: t.toISOString(),
      publicationState: tick.publicationState,
      headlinePts: tn.headlinePts,
      headlineClockSpeed: tn.speedH,
      legs: h.live.map((q, j) => ({
        conditionId: q.conditionId,
        legKey: q.legKey,
        label: q.label,
        gridOrder: q.gridOrder,
        p: h.p[j] as number,
        daysToSettlement: q.days,
        observedAt: q.observedAt === null ? null : q.observedAt.toISOString(),
      })),
    },
    clock,
    composition: compositionOf(current, h),
    degradedStreak,
    tickCount: current.tickCount + 1,
  };
  if (degradedStreak >= def.gates.retireAfterDegradedTicks) {
    return { state: { ...nextState, retiredAt: t.toISOString(), retiredReason: "degraded" }, tick };
  }
  return { state: nextState, tick };
}
