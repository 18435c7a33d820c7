import Decimal from "decimal.js";
import type { Snapshot } from "@/lib/engine/types";
import type { VolGates, VolSeriesDefinition } from "@/lib/engine/volatility/types";

// Factories for volatility tests: a 4-leg partition settling 120 days after T0, quoted hourly.

export const T0 = new Date("2025-01-01T00:00:00.000Z");
export const at = (h: number) => new Date(T0.getTime() + h * 3_600_000);
export const LEGS = ["a", "b", "c", "d"] as const;

export const GATES: VolGates = {
  arbMinDepthUsd: 500,
  arbToleranceMin: 0.005,
  arbToleranceTicks: 1,
  depthFloorUsd: 250,
  devigTolerance: 0.02,
  identityTolerance: 0.0001,
  impactBudgetPts: 1.5,
  overroundFlagHi: 1.06,
  overroundFlagLo: 0.98,
  pythagoreanTolerancePts2: 0.01,
  retireAfterDegradedTicks: 168,
  snapshotMaxAgeSeconds: 7200,
  snapshotMaxSkewSeconds: 3600,
  spreadToMidMax: 1,
  suspendFailingBudgetShare: 0.25,
};

export function volDef(over: Partial<VolSeriesDefinition> = {}): VolSeriesDefinition {
  return {
    ticker: "VOL-TEST",
    slug: "vol-test",
    name: "Test Volatility",
    description: "test",
    category: "test",
    productFamily: "PM Volatility",
    targetType: "composite-of-partition",
    units: "probability points",
    definitionLine: "Test partition, 30 days.",
    headlineTenorDays: 30,
    tenorsDays: [7, 30, 90],
    inceptionAt: T0,
    settlementDate: "2025-05-01",
    listed: true,
    methodologyUrl: "http://localhost:3000/docs/methodology#volatility",
    relatedIndexTickers: [],
    gates: { ...GATES },
    legs: [...LEGS],
    methodologyVersion: "vol-test",
    ...over,
  };
}

export interface LegQuoteInput {
  mid: number;
  spread?: number;
  depth?: number;
  observedAt?: Date;
  resolved?: boolean;
  outcome?: 0 | 1 | null;
}

export function legSnap(id: string, t: Date, q: LegQuoteInput): Snapshot {
  const spread = q.spread ?? 0.01;
  return {
    observedAt: q.observedAt ?? t,
    conditionId: id,
    legKey: id,
    label: `Leg ${id.toUpperCase()}`,
    bestBid: new Decimal((q.mid - spread / 2).toFixed(6)),
    bestAsk: new Decimal((q.mid + spread / 2).toFixed(6)),
    mid: new Decimal(q.mid.toFixed(6)),
    depthUsd: new Decimal(q.depth ?? 5_000),
    settlementDate: null,
    resolved: q.resolved ?? false,
    outcome: q.outcome ?? null,
  };
}

export const BASE_MIDS = [0.405, 0.305, 0.2, 0.1];

/** Snapshots of the four legs at t; overrides per leg index. */
export function partition(
  t: Date,
  mids: readonly number[] = BASE_MIDS,
  over: Record<number, Partial<LegQuoteInput>> = {},
): Snapshot[] {
  return LEGS.map((id, i) => legSnap(id, t, { mid: mids[i] as number, ...over[i] }));
}
