import type { Snapshot } from "../types";
import { MS_PER_DAY } from "../time-format";
import type { LegWindow, VolSeriesDefinition } from "./types";

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
  /** the quote came from the venue's price history (no book): the depth rule does not apply to it */
  fromHistory: boolean;
  settlement: Date | null;
  days: number | null;
  resolved: boolean;
  outcome: 0 | 1 | null;
}

/** The legs in force at t, in grid order: those whose window holds t, or `legs` when the series keeps no windows. */
export function legsInForce(def: Pick<VolSeriesDefinition, "legs" | "legWindows">, t: Date): string[] {
  const windows = def.legWindows ?? [];
  if (windows.length === 0) return def.legs;
  const at = t.getTime();
  return windows
    .filter((w) => (w.from === null || Date.parse(w.from) <= at) && (w.until === null || at < Date.parse(w.until)))
    .map((w) => w.conditionId);
}

/** Every leg the series has ever had (current legs and windows): the markets whose snapshots it reads. */
export function everyLeg(def: Pick<VolSeriesDefinition, "legs" | "legWindows">): string[] {
  return [...new Set([...(def.legWindows ?? []).map((w) => w.conditionId), ...def.legs])];
}

/**
 * The leg windows after a venue read of the event at `hour`: legs the event lists that the series
 * lacks join from this hour (appended to the grid); legs the event no longer lists leave at this
 * hour; a leg resolved NO stays marked at 0 for the hour it resolved and leaves from the next
 * (a resolved market leaves at the next link). A leg that left does not come back.
 * A series that kept no windows starts them from `current` (legs in force since inception).
 */
export function updateLegWindows(
  windows: readonly LegWindow[],
  current: readonly string[],
  venueLegs: ReadonlyArray<{ conditionId: string; resolved: boolean; outcome: 0 | 1 | null }>,
  hour: Date,
): { windows: LegWindow[]; added: string[]; removed: string[] } {
  const out: LegWindow[] = windows.length
    ? windows.map((w) => ({ ...w }))
    : current.map((conditionId) => ({ conditionId, from: null, until: null }));
  const known = new Set(out.map((w) => w.conditionId));
  const listed = new Map(venueLegs.map((l) => [l.conditionId, l]));
  const at = hour.toISOString();
  const next = new Date(hour.getTime() + 3_600_000).toISOString();
  const added: string[] = [];
  const removed: string[] = [];
  for (const w of out) {
    if (w.until !== null) continue;
    const leg = listed.get(w.conditionId);
    if (leg === undefined) {
      w.until = at;
      removed.push(w.conditionId);
    } else if (leg.resolved && leg.outcome === 0) {
      w.until = next;
      removed.push(w.conditionId);
    }
  }
  for (const leg of venueLegs) {
    if (known.has(leg.conditionId) || leg.resolved) continue;
    out.push({ conditionId: leg.conditionId, from: at, until: null });
    known.add(leg.conditionId);
    added.push(leg.conditionId);
  }
  return { windows: out, added, removed };
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
        fromHistory: false,
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
      fromHistory: s.source === "history",
      settlement,
      days: daysToSettlement(t, settlement),
      resolved,
      outcome: resolved ? s.outcome : null,
    };
  });
}
