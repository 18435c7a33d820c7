import type { GateFlag, VolGates, VolStatus } from "./types";

/** Price tick used to express `arbToleranceTicks` in probability units. */
export const PRICE_TICK = 0.01;

export interface GateLeg {
  legKey: string;
  label: string;
  bid: number;
  ask: number;
  mid: number;
  depthUsd: number;
  /** null when the leg has never been quoted */
  observedAt: Date | null;
  resolved: boolean;
  /** the leg's share of the variance budget V */
  budgetShare: number;
  /** largest headline move (points) when this leg's mid is replaced by its bid or its ask */
  impactPts: number;
}

export interface GateInput {
  gates: VolGates;
  t: Date;
  legs: readonly GateLeg[];
  sumRaw: number;
  /** largest disagreement between multiplicative and power de-vig, with its leg */
  devigGap: { legKey: string; gap: number } | null;
  /** published pts^2 minus the sum of the legs' published pts^2, per tenor */
  pythagorean: readonly { tenorDays: number; gapPts2: number }[];
  /** attribution residual (points squared); null when there is no previous tick */
  identityResidualPts2: number | null;
}

export interface GateResult {
  status: VolStatus;
  flags: GateFlag[];
  /** failing gate names per leg key */
  legGates: Record<string, string[]>;
  failingBudgetShare: number;
}

/** Gates whose failure disqualifies a leg; the rest flag the whole tick. */
export const LEG_GATES = ["leg_missing", "snapshot_age", "depth_floor", "spread_to_mid", "impact"] as const;

const usd = (v: number) => `$${Math.round(v).toLocaleString("en-US")}`;
const hours = (seconds: number) => `${(seconds / 3600).toFixed(1)} hours`;
const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
const num = (v: number, digits = 3) => v.toFixed(digits);

/** Applies every publication gate; a tick whose failing legs carry too much of the budget is suspended. */
export function evaluateGates(input: GateInput): GateResult {
  const { gates, t, legs } = input;
  const flags: GateFlag[] = [];
  const legGates: Record<string, string[]> = {};
  const failLeg = (leg: GateLeg, gate: string, publicDetail: string) => {
    (legGates[leg.legKey] ??= []).push(gate);
    flags.push({ gate, legKey: leg.legKey, publicDetail });
  };

  for (const leg of legs) {
    if (leg.observedAt === null) {
      failLeg(leg, "leg_missing", `No quote has been seen for '${leg.label}', so the partition is incomplete.`);
      continue;
    }
    if (leg.resolved) continue;
    const age = (t.getTime() - leg.observedAt.getTime()) / 1000;
    if (age > gates.snapshotMaxAgeSeconds) {
      failLeg(
        leg,
        "snapshot_age",
        `The latest quote for '${leg.label}' is ${hours(age)} old, beyond the ${hours(gates.snapshotMaxAgeSeconds)} limit.`,
      );
    }
    if (leg.depthUsd < gates.depthFloorUsd) {
      failLeg(
        leg,
        "depth_floor",
        `'${leg.label}' has ${usd(leg.depthUsd)} of book depth, below the ${usd(gates.depthFloorUsd)} floor.`,
      );
    }
    const spreadToMid = leg.mid > 0 ? (leg.ask - leg.bid) / leg.mid : Number.POSITIVE_INFINITY;
    if (spreadToMid > gates.spreadToMidMax) {
      failLeg(
        leg,
        "spread_to_mid",
        `The bid-ask spread on '${leg.label}' is ${num(spreadToMid, 2)} times its mid price, above the ${num(gates.spreadToMidMax, 2)} limit.`,
      );
    }
    if (leg.impactPts > gates.impactBudgetPts) {
      failLeg(
        leg,
        "impact",
        `Moving '${leg.label}' to its bid or ask would shift the headline by ${num(leg.impactPts, 2)} points, more than the ${num(gates.impactBudgetPts, 2)}-point budget.`,
      );
    }
  }

  if (input.sumRaw > gates.overroundFlagHi) {
    flags.push({
      gate: "overround",
      legKey: null,
      publicDetail: `Leg prices sum to ${num(input.sumRaw)}, above the ${num(gates.overroundFlagHi)} ceiling.`,
    });
  } else if (input.sumRaw < gates.overroundFlagLo) {
    flags.push({
      gate: "underround",
      legKey: null,
      publicDetail: `Leg prices sum to ${num(input.sumRaw)}, below the ${num(gates.overroundFlagLo)} floor.`,
    });
  }

  const quoted = legs.filter((l) => l.observedAt !== null && !l.resolved);
  const times = quoted.map((l) => (l.observedAt as Date).getTime());
  if (times.length > 1) {
    const skew = (Math.max(...times) - Math.min(...times)) / 1000;
    if (skew > gates.snapshotMaxSkewSeconds) {
      flags.push({
        gate: "snapshot_skew",
        legKey: null,
        publicDetail: `Leg quotes were taken up to ${hours(skew)} apart, beyond the ${hours(gates.snapshotMaxSkewSeconds)} limit.`,
      });
    }
  }

  const tolerance = Math.max(gates.arbToleranceMin, gates.arbToleranceTicks * PRICE_TICK);
  if (
    quoted.length > 1 &&
    quoted.length === legs.filter((l) => !l.resolved).length &&
    quoted.every((l) => l.depthUsd >= gates.arbMinDepthUsd)
  ) {
    const sumAsk = quoted.reduce((s, l) => s + l.ask, 0);
    const sumBid = quoted.reduce((s, l) => s + l.bid, 0);
    if (sumAsk < 1 - tolerance) {
      flags.push({
        gate: "arbitrage",
        legKey: null,
        publicDetail: `Buying every leg at its ask costs ${num(sumAsk)}, less than the 1.000 payout by more than ${num(tolerance)}.`,
      });
    } else if (sumBid > 1 + tolerance) {
      flags.push({
        gate: "arbitrage",
        legKey: null,
        publicDetail: `Selling every leg at its bid raises ${num(sumBid)}, more than the 1.000 payout by more than ${num(tolerance)}.`,
      });
    }
  }

  if (input.devigGap !== null && input.devigGap.gap > gates.devigTolerance) {
    flags.push({
      gate: "devig",
      legKey: input.devigGap.legKey,
      publicDetail: `De-vig methods disagree by ${num(input.devigGap.gap, 4)} on one leg, beyond the ${num(gates.devigTolerance, 4)} tolerance.`,
    });
  }

  for (const p of input.pythagorean) {
    if (Math.abs(p.gapPts2) > gates.pythagoreanTolerancePts2) {
      flags.push({
        gate: "pythagorean",
        legKey: null,
        publicDetail: `At ${p.tenorDays} days the published value squared differs from the sum of its legs' squares by ${num(Math.abs(p.gapPts2), 4)} points squared.`,
      });
    }
  }

  if (input.identityResidualPts2 !== null && Math.abs(input.identityResidualPts2) > gates.identityTolerance) {
    flags.push({
      gate: "identity",
      legKey: null,
      publicDetail: `The move's price and clock parts fail to add up by ${num(Math.abs(input.identityResidualPts2), 6)} points squared.`,
    });
  }

  const failing = legs.filter((l) => (legGates[l.legKey]?.length ?? 0) > 0);
  const anyMissing = legs.some((l) => l.observedAt === null);
  const failingBudgetShare = failing.reduce((s, l) => s + l.budgetShare, 0);
  let status: VolStatus = flags.length > 0 ? "flagged" : "ok";
  if (anyMissing || failingBudgetShare > gates.suspendFailingBudgetShare) {
    status = "suspended";
    flags.push({
      gate: "failing_budget_share",
      legKey: null,
      publicDetail: anyMissing
        ? "A leg of the partition has no quote, so the value is withheld."
        : `Legs failing their gates carry ${pct(failingBudgetShare)} of the variance budget, above the ${pct(gates.suspendFailingBudgetShare)} limit, so the value is withheld.`,
    });
  }
  return { status, flags, legGates, failingBudgetShare };
}
