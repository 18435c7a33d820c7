import Decimal from "decimal.js";
import type { VolGates } from "@/lib/engine/volatility/types";
import { D, type LegRow } from "@/lib/snapshots/verify-common";

/** The verifier's own reading of the documented gates, in exact decimal arithmetic. */
export interface GateFacts {
  gates: VolGates;
  t: Date;
  legs: readonly LegRow[];
  /** per leg of `legs`: largest headline move to its bid or ask (points); share of the budget */
  impactPts: readonly number[];
  budgetShare: readonly number[];
  devigGap: number | null;
  pythagorean: ReadonlyArray<{ pts: number; legPts: readonly number[] }>;
  identity: { deltaPts2: number; parts: readonly number[] } | null;
}

/** The methodology page's gate table, rule by rule; returns the status and the gates that fail. */
export function decideGates(f: GateFacts): { status: "ok" | "flagged" | "suspended"; names: string[] } {
  const g = f.gates;
  const d = (v: number | string) => new D(v);
  const names = new Set<string>();
  const failing = new Set<number>();
  f.legs.forEach((l, i) => {
    const failLeg = (gate: string) => {
      names.add(gate);
      failing.add(i);
    };
    if (l.observedAt === null) return failLeg("leg_missing");
    if (l.resolved) return;
    if (d(f.t.getTime() - l.observedAt.getTime()).greaterThan(d(g.snapshotMaxAgeSeconds).times(1000)))
      failLeg("snapshot_age");
    if (!l.fromHistory && d(l.cells.depthUsd).lessThan(d(g.depthFloorUsd))) failLeg("depth_floor");
    const mid = d(l.cells.mid);
    if (!mid.greaterThan(0) || d(l.cells.ask).minus(d(l.cells.bid)).div(mid).greaterThan(d(g.spreadToMidMax)))
      failLeg("spread_to_mid");
    if (d(f.impactPts[i] as number).greaterThan(d(g.impactBudgetPts))) failLeg("impact");
  });
  const quoted = f.legs.filter((l) => l.observedAt !== null);
  const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(d(x)), d(0));
  const sumMid = sum(quoted.map((l) => l.cells.mid));
  if (sumMid.greaterThan(d(g.overroundFlagHi))) names.add("overround");
  else if (sumMid.lessThan(d(g.overroundFlagLo))) names.add("underround");
  const live = quoted.filter((l) => !l.resolved);
  const times = live.map((l) => (l.observedAt as Date).getTime());
  if (
    times.length > 1 &&
    d(Math.max(...times) - Math.min(...times)).greaterThan(d(g.snapshotMaxSkewSeconds).times(1000))
  )
    names.add("snapshot_skew");
  const tolerance = Decimal.max(d(g.arbToleranceMin), d(g.arbToleranceTicks).times("0.01"));
  if (
    live.length > 1 &&
    live.length === f.legs.filter((l) => !l.resolved).length &&
    live.every((l) => !d(l.cells.depthUsd).lessThan(d(g.arbMinDepthUsd)))
  ) {
    const asks = sum(live.map((l) => l.cells.ask));
    const bids = sum(live.map((l) => l.cells.bid));
    if (asks.lessThan(d(1).minus(tolerance)) || bids.greaterThan(d(1).plus(tolerance))) names.add("arbitrage");
  }
  if (f.devigGap !== null && d(f.devigGap).greaterThan(d(g.devigTolerance))) names.add("devig");
  for (const p of f.pythagorean) {
    const gap = p.legPts.reduce((s, x) => s.minus(d(x).pow(2)), d(p.pts).pow(2)).abs();
    if (gap.greaterThan(d(g.pythagoreanTolerancePts2))) names.add("pythagorean");
  }
  if (f.identity !== null) {
    const residual = f.identity.parts.reduce((s, x) => s.minus(d(x)), d(f.identity.deltaPts2)).abs();
    if (residual.greaterThan(d(g.identityTolerance))) names.add("identity");
  }
  const missing = f.legs.some((l) => l.observedAt === null);
  const failingShare = [...failing].reduce((s, i) => s.plus(d(f.budgetShare[i] as number)), d(0));
  let status: "ok" | "flagged" | "suspended" = names.size > 0 ? "flagged" : "ok";
  if (missing || failingShare.greaterThan(d(g.suspendFailingBudgetShare))) {
    status = "suspended";
    names.add("failing_budget_share");
  }
  return { status, names: [...names].sort() };
}
