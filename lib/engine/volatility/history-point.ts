import type { VolHistoryPoint, VolSeriesDefinition, VolTick } from "./types";

/** The history point of a tick: the spec's fields, without the per-leg panel. */
export function toHistoryPoint(tick: VolTick): VolHistoryPoint {
  return {
    t: tick.computedAt,
    headlinePts: tick.headlinePts,
    tenors: tick.tenors,
    tier: tick.labels.tier,
    bandLoPts: tick.bandLoPts,
    bandHiPts: tick.bandHiPts,
    attrDeltaHeadlinePts: tick.attrDeltaHeadlinePts,
    attrDeltaFrom: tick.labels.attrDeltaFrom,
    attrDeltaFromPublished: tick.labels.attrDeltaFromPublished,
    clockSpeed: tick.labels.clockSpeed,
    cfHeadlinePts: tick.counterfactual.headlinePts,
    anchorFingerprint: tick.counterfactual.anchorFingerprint,
    clockHomogeneityDisclosure: tick.labels.clockHomogeneityDisclosure,
    clockVersion: tick.clockVersion,
    compositionVersion: tick.compositionVersion,
    devigVersion: tick.devigVersion,
    methodologyVersion: tick.methodologyVersion,
    effectiveN: tick.effectiveN,
    fbvRLabel: tick.fbvRLabel,
    fbvRPts: tick.fbvRPts,
    wTilde: tick.wTilde,
    gateNames: [...new Set(tick.gateFlags.map((f) => f.gate))],
    publicationState: tick.publicationState,
    revision: tick.revision,
    status: tick.status,
    units: tick.units,
  };
}

/** The spec's series-definition object (engine-only fields dropped; inceptionAt stays a Date for the caller to format). */
export function toSeriesDefinition(
  def: VolSeriesDefinition,
): Omit<VolSeriesDefinition, "legs" | "legWindows" | "methodologyVersion" | "partitionOrder"> {
  const series: Partial<VolSeriesDefinition> = { ...def };
  delete series.legs;
  delete series.legWindows;
  delete series.methodologyVersion;
  delete series.partitionOrder;
  return series as Omit<VolSeriesDefinition, "legs" | "legWindows" | "methodologyVersion" | "partitionOrder">;
}
