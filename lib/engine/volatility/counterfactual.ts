import { canonicalJson, type JsonValue } from "../canonical-json";
import { devigMultiplicative } from "../devig";
import { sha256Hex } from "../sha256";
import { formatMicros } from "../time-format";
import type { LegQuote } from "./legs";
import type { PartitionOrder } from "./ordered";
import { CALENDAR_PRIOR } from "./prior";
import { PTS2, partitionTenorVariance, preparePartition } from "./tenor-variance";
import type { Counterfactual, InceptionConfig, VolSeriesDefinition } from "./types";
import { round6 } from "./round";

export const DEVIG_VERSION = "multiplicative.v1";
export const CALENDAR_CLOCK_VERSION = "calendar.v1";
export const HISTORICAL_CLOCK_VERSION = "rv-clock.v2";

/** The configuration in force at the first tick, frozen for the counterfactual. */
export function inceptionConfigOf(def: VolSeriesDefinition, anchorAt: Date): InceptionConfig {
  return {
    ticker: def.ticker,
    anchorAt: formatMicros(anchorAt),
    methodologyVersion: def.methodologyVersion,
    targetType: def.targetType,
    legs: [...def.legs],
    tenorsDays: [...def.tenorsDays],
    headlineTenorDays: def.headlineTenorDays,
    devigVersion: DEVIG_VERSION,
    clockVersion: CALENDAR_CLOCK_VERSION,
    gates: { ...def.gates },
  };
}

/** sha256 of the configuration's canonical JSON, hex. */
export function fingerprintOf(config: InceptionConfig): string {
  return sha256Hex(canonicalJson(config as unknown as JsonValue));
}

/** The value recomputed with the inception legs, tenors, de-vig and the calendar clock (an analytic, not a published value). */
export function computeCounterfactual(
  config: InceptionConfig,
  fingerprint: string,
  quotes: readonly LegQuote[],
  order: PartitionOrder = "unordered",
): Counterfactual {
  const byId = new Map(quotes.map((q) => [q.conditionId, q]));
  const legs = config.legs
    .map((id) => byId.get(id))
    .filter((q): q is LegQuote => q !== undefined && q.observedAt !== null);
  const p = devigMultiplicative(legs.map((q) => q.mid)) ?? legs.map(() => 0);
  const part = preparePartition(
    p,
    legs.map((q) => q.days),
    order,
  );
  const budget = part.budget;
  const tenor = (tau: number) => {
    // the calendar clock at the prior speed of the partition's kind
    const v = partitionTenorVariance(part, tau, CALENDAR_PRIOR[order].speed, "diffusion");
    return { pts: round6(100 * Math.sqrt(v)), share: round6(budget > 0 ? v / budget : 0) };
  };
  const tenors = Object.fromEntries(config.tenorsDays.map((tau) => [String(tau), tenor(tau)]));
  return {
    anchorAt: config.anchorAt,
    anchorFingerprint: fingerprint,
    clockVersion: config.clockVersion,
    headlinePts: tenor(config.headlineTenorDays).pts,
    rPts: round6(Math.sqrt(budget * PTS2)),
    tenors,
  };
}
