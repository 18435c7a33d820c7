import type Decimal from "decimal.js";
import { dec } from "../decimal";
import type { GateFlag, VolGates, VolStatus } from "./types";

// Every gate is decided in exact decimal arithmetic: each number enters as the decimal it prints
// as (a quote, a depth, a tolerance, a published value; a computed quantity such as the impact
// as its shortest round-trip decimal), sums and differences are exact, and a limit is crossed
// only when the documented comparison holds for those decimals ("by more than" is strict).
// Binary floating point would turn bids 0.185 + 0.351 + 0.340 + 0.134 = 1.010 into
// 1.0100000000000002 and flag an arbitrage the rule does not see.

/** Price tick used to express `arbToleranceTicks` in probability units. */
export const PRICE_TICK = "0.01";

/** Exact sum of numbers taken as the decimals they print as. */
export function decimalSum(values: readonly number[]): Decimal {
  return values.reduce<Decimal>((s, v) => s.plus(dec(v)), dec(0));
}

/** The arbitrage tolerance: the larger of arbToleranceMin and arbToleranceTicks ticks of 0.01, exact. */
export function arbTolerance(gates: Pick<VolGates, "arbToleranceMin" | "arbToleranceTicks">): Decimal {
  const ticks = dec(gates.arbToleranceTicks).times(PRICE_TICK);
  const min = dec(gates.arbToleranceMin);
  return ticks.greaterThan(min) ? ticks : min;
}

/** A published value squared minus the sum of its legs' published values squared (points squared), exact. */
export function pythagoreanGap(pts: number, legPts: readonly number[]): Decimal {
  return legPts.reduce<Decimal>((s, x) => s.minus(dec(x).pow(2)), dec(pts).pow(2));
}

/** The attribution residual of the published (rounded) numbers: deltaPts2 minus the sum of every leg's price and clock parts, exact. */
export function identityResidual(identity: AttributionIdentity): Decimal {
  return identity.parts.reduce<Decimal>((s, x) => s.minus(dec(x)), dec(identity.deltaPts2));
}

/** The identity gate's rule: the residual's magnitude is at most identityTolerance. */
export function identityHolds(identity: AttributionIdentity, tolerance: number): boolean {
  return identityResidual(identity).abs().lessThanOrEqualTo(dec(tolerance));
}

/** The published attribution numbers the identity gate checks. */
export interface AttributionIdentity {
  /** published deltaPts2 */
  deltaPts2: number;
  /** every leg's published deltaPrice and deltaClock */
  parts: readonly number[];
}

export interface GateLeg {
  legKey: string;
  label: string;
  bid: number;
  ask: number;
  mid: number;
  depthUsd: number;
  /** a price from the venue's history has no book: the depth floor does not apply to it (other gates do) */
  fromHistory?: boolean;
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
  /** largest disagreement between multiplicative and power de-vig, with its leg */
  devigGap: { legKey: string; gap: number } | null;
  /** per tenor, the published pts and every leg's published pts (the Pythagorean check) */
  pythagorean: readonly { tenorDays: number; pts: number; legPts: readonly number[] }[];
  /** the published attribution numbers; null when there is no previous tick */
  identity: AttributionIdentity | null;
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
const num = (v: number | Decimal, digits = 3) => v.toFixed(digits);
const over = (v: number | Decimal, limit: number) => dec(v).greaterThan(dec(limit));
const under = (v: number | Decimal, limit: number) => dec(v).lessThan(dec(limit));

/** Applies every publication gate; a tick whose failing legs carry too much of the budget is suspended. */
export function evaluateGates(input: GateInput): GateResult {
  const flags: GateFlag[] = [];
  const legGates: Record<string, string[]> = {};
  const failLeg = (leg: GateLeg, gate: string, publicDetail: string) => {
    (legGates[leg.legKey] ??= []).push(gate);
    flags.push({ gate, legKey: leg.legKey, publicDetail });
  };
  for (const leg of input.legs) legFlags(input, leg, failLeg);
  partitionFlags(input, flags);
  checkFlags(input, flags);
  return verdict(input, flags, legGates);
}

/** The gates of one leg: missing, quote age, depth, spread, impact. */
function legFlags(
  { gates, t }: GateInput,
  leg: GateLeg,
  failLeg: (leg: GateLeg, gate: string, publicDetail: string) => void,
): void {
  if (leg.observedAt === null) {
    failLeg(leg, "leg_missing", `No quote has been seen for '${leg.label}', so the partition is incomplete.`);
    return;
  }
  if (leg.resolved) return;
  const ageMs = t.getTime() - leg.observedAt.getTime();
  const age = ageMs / 1000;
  if (dec(ageMs).greaterThan(dec(gates.snapshotMaxAgeSeconds).times(1000))) {
    failLeg(
      leg,
      "snapshot_age",
      `The latest quote for '${leg.label}' is ${hours(age)} old, beyond the ${hours(gates.snapshotMaxAgeSeconds)} limit.`,
    );
  }
  if (!leg.fromHistory && under(leg.depthUsd, gates.depthFloorUsd)) {
    failLeg(
      leg,
      "depth_floor",
      `'${leg.label}' has ${usd(leg.depthUsd)} of book depth, below the ${usd(gates.depthFloorUsd)} floor.`,
    );
  }
  // (ask - bid) / mid > spreadToMidMax, decided as ask - bid > spreadToMidMax * mid (no division)
  const spread = dec(leg.ask).minus(dec(leg.bid));
  const spreadToMid = leg.mid > 0 ? spread.div(dec(leg.mid)).toNumber() : Number.POSITIVE_INFINITY;
  if (leg.mid > 0 ? spread.greaterThan(dec(gates.spreadToMidMax).times(dec(leg.mid))) : true) {
    failLeg(
      leg,
      "spread_to_mid",
      `The bid-ask spread on '${leg.label}' is ${num(spreadToMid, 2)} times its mid price, above the ${num(gates.spreadToMidMax, 2)} limit.`,
    );
  }
  if (over(leg.impactPts, gates.impactBudgetPts)) {
    failLeg(
      leg,
      "impact",
      `Moving '${leg.label}' to its bid or ask would shift the headline by ${num(leg.impactPts, 2)} points, more than the ${num(gates.impactBudgetPts, 2)}-point budget.`,
    );
  }
}

/** The gates of the partition as a whole: the legs' sum, their quotes' skew, arbitrage. */
function partitionFlags({ gates, legs }: GateInput, flags: GateFlag[]): void {
  const sumRaw = decimalSum(legs.filter((l) => l.observedAt !== null).map((l) => l.mid));
  if (over(sumRaw, gates.overroundFlagHi)) {
    flags.push({
      gate: "overround",
      legKey: null,
      publicDetail: `Leg prices sum to ${num(sumRaw)}, above the ${num(gates.overroundFlagHi)} ceiling.`,
    });
  } else if (under(sumRaw, gates.overroundFlagLo)) {
    flags.push({
      gate: "underround",
      legKey: null,
      publicDetail: `Leg prices sum to ${num(sumRaw)}, below the ${num(gates.overroundFlagLo)} floor.`,
    });
  }

  const quoted = legs.filter((l) => l.observedAt !== null && !l.resolved);
  const times = quoted.map((l) => (l.observedAt as Date).getTime());
  if (times.length > 1) {
    const skewMs = Math.max(...times) - Math.min(...times);
    const skew = skewMs / 1000;
    if (dec(skewMs).greaterThan(dec(gates.snapshotMaxSkewSeconds).times(1000))) {
      flags.push({
        gate: "snapshot_skew",
        legKey: null,
        publicDetail: `Leg quotes were taken up to ${hours(skew)} apart, beyond the ${hours(gates.snapshotMaxSkewSeconds)} limit.`,
      });
    }
  }

  const tolerance = arbTolerance(gates);
  if (
    quoted.length > 1 &&
    quoted.length === legs.filter((l) => !l.resolved).length &&
    quoted.every((l) => !under(l.depthUsd, gates.arbMinDepthUsd))
  ) {
    const sumAsk = decimalSum(quoted.map((l) => l.ask));
    const sumBid = decimalSum(quoted.map((l) => l.bid));
    if (sumAsk.lessThan(dec(1).minus(tolerance))) {
      flags.push({
        gate: "arbitrage",
        legKey: null,
        publicDetail: `Buying every leg at its ask costs ${num(sumAsk)}, less than the 1.000 payout by more than ${num(tolerance)}.`,
      });
    } else if (sumBid.greaterThan(dec(1).plus(tolerance))) {
      flags.push({
        gate: "arbitrage",
        legKey: null,
        publicDetail: `Selling every leg at its bid raises ${num(sumBid)}, more than the 1.000 payout by more than ${num(tolerance)}.`,
      });
    }
  }
}

/** The consistency checks of the computation: de-vig agreement, Pythagorean sums, the move's identity. */
function checkFlags(input: GateInput, flags: GateFlag[]): void {
  const { gates } = input;
  if (input.devigGap !== null && over(input.devigGap.gap, gates.devigTolerance)) {
    flags.push({
      gate: "devig",
      legKey: input.devigGap.legKey,
      publicDetail: `De-vig methods disagree by ${num(input.devigGap.gap, 4)} on one leg, beyond the ${num(gates.devigTolerance, 4)} tolerance.`,
    });
  }

  for (const p of input.pythagorean) {
    const gap = pythagoreanGap(p.pts, p.legPts).abs();
    if (over(gap, gates.pythagoreanTolerancePts2)) {
      flags.push({
        gate: "pythagorean",
        legKey: null,
        publicDetail: `At ${p.tenorDays} days the published value squared differs from the sum of its legs' squares by ${num(gap, 4)} points squared.`,
      });
    }
  }

  if (input.identity !== null && !identityHolds(input.identity, gates.identityTolerance)) {
    flags.push({
      gate: "identity",
      legKey: null,
      publicDetail: `The move's price and clock parts fail to add up by ${num(identityResidual(input.identity).abs(), 6)} points squared.`,
    });
  }
}

/** ok, flagged, or suspended when a leg is missing or failing legs carry too much of the budget. */
function verdict({ gates, legs }: GateInput, flags: GateFlag[], legGates: Record<string, string[]>): GateResult {
  const failing = legs.filter((l) => (legGates[l.legKey]?.length ?? 0) > 0);
  const anyMissing = legs.some((l) => l.observedAt === null);
  const failingShare = decimalSum(failing.map((l) => l.budgetShare));
  const failingBudgetShare = failingShare.toNumber();
  let status: VolStatus = flags.length > 0 ? "flagged" : "ok";
  if (anyMissing || over(failingShare, gates.suspendFailingBudgetShare)) {
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
