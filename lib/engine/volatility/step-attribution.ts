import { formatMicros } from "../time-format";
import { attributeLegs, type AttributionLegInput, type LegClock, type LegShape } from "./attribution";
import { horizonFraction } from "./diffusion-share";
import { identityHolds, type AttributionIdentity } from "./gates";
import type { PartitionOrder } from "./ordered";
import type { HourPartition, HourTenors } from "./step-hour";
import { PTS2, legShape, legVarianceAt, preparePartition, type PreparedPartition } from "./tenor-variance";
import { round6 } from "./round";
import type { Attribution, PrevLeg, VolSeriesDefinition, VolState } from "./types";

/** Headline-tenor variance of one leg in points^2: the function the attribution splits. */
function headlineLegPts2(tenorDays: number) {
  return (p: number, clock: LegClock, shape?: LegShape) =>
    PTS2 * legVarianceAt(p, shape, clock.days === null ? 1 : horizonFraction(tenorDays, clock.days, clock.speed));
}

/** The previous computation's legs as the variances saw them (floor applied, thresholds in leg order). */
export function preparedPrev(prev: { legs: readonly PrevLeg[] }, order: PartitionOrder): PreparedPartition {
  return preparePartition(
    prev.legs.map((l) => l.p),
    prev.legs.map((l) => l.daysToSettlement),
    order,
  );
}

/** The attribution of a series' first computation: nothing to measure from. */
function firstAttribution(H: number): Attribution {
  return {
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
}

/** Every leg of now or of the previous computation, with its probability, clock and shape at both ends. */
function attributionInputs(
  prev: NonNullable<VolState["prev"]>,
  h: HourPartition,
  speedH: number,
): AttributionLegInput[] {
  const prevPart = preparedPrev(prev, h.order);
  const prevById = new Map(
    prev.legs.map((l, i) => [l.conditionId, { ...l, p: prevPart.p[i] as number, shape: legShape(prevPart, i) }]),
  );
  const clockNow: LegClock[] = h.days.map((d) => ({ days: d, speed: speedH }));
  const ids = [...new Set([...h.live.map((q) => q.conditionId), ...prev.legs.map((l) => l.conditionId)])];
  return ids.map((id) => {
    const before = prevById.get(id);
    const j = h.liveIndex.get(id);
    const q = j === undefined ? undefined : h.live[j];
    const nowClock = j === undefined ? undefined : clockNow[j];
    const prevClock: LegClock | undefined =
      before === undefined ? undefined : { days: before.daysToSettlement, speed: prev.headlineClockSpeed };
    return {
      legKey: q?.legKey ?? before?.legKey ?? id,
      label: q?.label ?? before?.label ?? id,
      gridOrder: q?.gridOrder ?? before?.gridOrder ?? -1,
      p0: before?.p ?? 0,
      p1: j === undefined ? 0 : (h.part.p[j] as number),
      clock0: prevClock ?? (nowClock as LegClock),
      clock1: nowClock ?? (prevClock as LegClock),
      shape0: before?.shape,
      shape1: j === undefined ? undefined : legShape(h.part, j),
    };
  });
}

/**
 * The move of the headline since the previous computation, split per leg into its price and clock
 * parts, and the identity the gates check (the parts add up to the change in points squared).
 */
export function attributionOf(
  def: VolSeriesDefinition,
  prev: VolState["prev"],
  t: Date,
  h: HourPartition,
  tn: HourTenors,
): { attribution: Attribution; identity: AttributionIdentity | null } {
  if (prev === null) return { attribution: firstAttribution(h.H), identity: null };
  const headlinePts = tn.headlinePts;
  const splits = attributeLegs(attributionInputs(prev, h, tn.speedH), headlineLegPts2(h.H)).sort(
    (a, b) => a.gridOrder - b.gridOrder,
  );
  const deltaPts2 = headlinePts * headlinePts - prev.headlinePts * prev.headlinePts;
  const legs = splits.map((s) => ({
    delta: round6(s.delta),
    deltaClock: round6(s.deltaClock),
    deltaPrice: round6(s.deltaPrice),
    gridOrder: s.gridOrder,
    label: s.label,
    legKey: s.legKey,
  }));
  const identity = { deltaPts2: round6(deltaPts2), parts: legs.flatMap((l) => [l.deltaPrice, l.deltaClock]) };
  const attribution: Attribution = {
    deltaPts: round6(headlinePts - prev.headlinePts),
    deltaPts2: round6(deltaPts2),
    gapSeconds: Math.round((t.getTime() - new Date(prev.computedAt).getTime()) / 1000),
    legs,
    prevComputedAt: formatMicros(new Date(prev.computedAt), false),
    reason: null,
    status: identityHolds(identity, def.gates.identityTolerance) ? "ok" : "identity_breach",
    tenorDays: h.H,
    units: "points squared",
    unitsPts: "points",
  };
  return { attribution, identity };
}
