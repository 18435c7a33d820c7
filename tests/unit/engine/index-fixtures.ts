import Decimal from "decimal.js";
import type { IndexDefinition, MarketInfo, Snapshot } from "@/lib/engine/types";

// Factories for index-engine tests: plain markets, snapshots and definitions.

export const T0 = new Date("2025-01-01T00:00:00.000Z");
export const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);

export function market(conditionId: string, over: Partial<MarketInfo> = {}): MarketInfo {
  return {
    conditionId,
    label: `Market ${conditionId}`,
    legKey: null,
    eventKey: `event-${conditionId}`,
    theme: "test",
    settlementDate: new Date("2026-01-01T00:00:00.000Z"),
    listedAt: T0,
    ...over,
  };
}

export function snap(conditionId: string, mid: string, at: Date, over: Partial<Snapshot> = {}): Snapshot {
  const m = new Decimal(mid);
  return {
    observedAt: at,
    conditionId,
    legKey: null,
    label: `Market ${conditionId}`,
    bestBid: m.minus("0.005"),
    bestAsk: m.plus("0.005"),
    mid: m,
    depthUsd: new Decimal("5000"),
    settlementDate: null,
    resolved: false,
    outcome: null,
    ...over,
  };
}

export function resolvedSnap(conditionId: string, outcome: 0 | 1, at: Date): Snapshot {
  return snap(conditionId, String(outcome), at, { resolved: true, outcome });
}

export function indexDef(over: Partial<IndexDefinition> = {}): IndexDefinition {
  return {
    ticker: "TEST",
    name: "Test Index",
    description: "test",
    theme: "test",
    inceptionAt: T0,
    maturityType: "PERPETUAL",
    methodologyVersion: "idx-test",
    stalenessLimitSeconds: 7200,
    eligibility: { theme: "test", eventKeyPrefix: null, includePartitionLegs: false },
    listed: true,
    ...over,
  };
}
