import type { Snapshot } from "../types";
import { MS_PER_DAY } from "../time-format";
import type { VolSeriesDefinition } from "./types";

/** One leg of the partition as the engine sees it at t (numbers, probability units). */
export interface LegQuote {
  conditionId: string;
  legKey: string;
  label: string;
  gridOrder: number;
  /** null when the leg has never been quoted at or before t */
  observedAt: Date | null;
  bid: number;
  ask: number;
  mid: number;
  depthUsd: number;
  settlement: Date | null;
  days: number | null;
  resolved: boolean;
  outcome: 0 | 1 | null;
}

/** Midnight UTC of an ISO date, or null. */
export function parseSettlementDate(isoDate: string | null): Date | null {
  return isoDate === null ? null : new Date(`${isoDate}T00:00:00.000Z`);
}

/** Days from t to settlement (negative once past), or null when no date is known. */
export function daysToSettlement(t: Date, settlement: Date | null): number | null {
  return settlement === null ? null : (settlement.getTime() - t.getTime()) / MS_PER_DAY;
}

/** The definition's legs in grid order with their latest snapshot at or before t. */
export function collectLegQuotes(def: VolSeriesDefinition, t: Date, snapshots: readonly Snapshot[]): LegQuote[] {
  const wanted = new Set(def.legs);
  const latest = new Map<string, Snapshot>();
  for (const s of snapshots) {
    if (!wanted.has(s.conditionId) || s.observedAt.getTime() > t.getTime()) continue;
    const seen = latest.get(s.conditionId);
    if (seen === undefined || seen.observedAt.getTime() < s.observedAt.getTime()) latest.set(s.conditionId, s);
  }
  const backstop = parseSettlementDate(def.settlementDate);
  return def.legs.map((conditionId, gridOrder) => {
    const s = latest.get(conditionId);
    if (s === undefined) {
      return {
        conditionId,
        legKey: conditionId,
        label: conditionId,
        gridOrder,
        observedAt: null,
        bid: 0,
        ask: 0,
        mid: 0,
        depthUsd: 0,
        settlement: backstop,
        days: daysToSettlement(t, backstop),
        resolved: false,
        outcome: null,
      };
    }
    const settlement = s.settlementDate ?? backstop;
    const resolved = s.resolved && s.outcome !== null;
    const settled = resolved ? (s.outcome as number) : null;
    return {
      conditionId,
      legKey: s.legKey ?? conditionId,
      label: s.label,
      gridOrder,
      observedAt: s.observedAt,
      bid: settled ?? s.bestBid.toNumber(),
      ask: settled ?? s.bestAsk.toNumber(),
      mid: settled ?? s.mid.toNumber(),
      depthUsd: s.depthUsd.toNumber(),
      settlement,
      days: daysToSettlement(t, settlement),
      resolved,
      outcome: resolved ? s.outcome : null,
    };
  });
}
