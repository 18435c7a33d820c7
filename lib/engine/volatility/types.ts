import type { PartitionOrder } from "./ordered";

/** Publication tolerances of a composite-of-partition series (field set as in the spec). */
export interface VolGates {
  /** minimum depth (USD) on every leg before a quoted arbitrage counts as executable */
  arbMinDepthUsd: number;
  /** minimum arbitrage tolerance, probability units */
  arbToleranceMin: number;
  /** arbitrage tolerance in price ticks of 0.01 (the larger of the two tolerances applies) */
  arbToleranceTicks: number;
  /** a leg with less book depth than this fails */
  depthFloorUsd: number;
  /** largest tolerated disagreement between multiplicative and power de-vig on any leg */
  devigTolerance: number;
  /** largest tolerated attribution residual, points squared */
  identityTolerance: number;
  /** a leg whose move to its bid or ask shifts the headline by more than this (points) fails */
  impactBudgetPts: number;
  overroundFlagHi: number;
  overroundFlagLo: number;
  /** largest tolerated gap between a published pts^2 and the sum of its legs' pts^2 */
  pythagoreanTolerancePts2: number;
  retireAfterDegradedTicks: number;
  snapshotMaxAgeSeconds: number;
  snapshotMaxSkewSeconds: number;
  /** a leg whose (ask - bid) / mid exceeds this fails */
  spreadToMidMax: number;
  /** a tick whose failing legs carry more than this share of the variance budget is suspended */
  suspendFailingBudgetShare: number;
}

export type VolTargetType = "composite-of-partition";

/** Serializable definition of a volatility series. `legs` and `methodologyVersion` are engine inputs, not part of the spec's series object. */
export interface VolSeriesDefinition {
  ticker: string;
  slug: string;
  name: string;
  description: string;
  category: string;
  productFamily: string;
  targetType: VolTargetType;
  units: "probability points";
  definitionLine: string;
  headlineTenorDays: number;
  tenorsDays: number[];
  inceptionAt: Date;
  /** ISO date (YYYY-MM-DD), the backstop settlement date */
  settlementDate: string | null;
  listed: boolean;
  methodologyUrl: string;
  relatedIndexTickers: string[];
  gates: VolGates;
  /** condition ids of the partition's legs, in grid order (the current set when `legWindows` is given) */
  legs: string[];
  /**
   * The leg set over time, for a venue event that lists outcomes after the series' discovery or
   * drops some: the legs in force at t are those whose window holds t, in this order. Absent or
   * empty: `legs` at every hour.
   */
  legWindows?: LegWindow[];
  /** `ordered`: the legs are consecutive intervals of one quantity, in grid order (absent: `unordered`) */
  partitionOrder?: PartitionOrder;
  methodologyVersion: string;
}

/** A leg's membership of the partition: from `from` (null: from inception) until `until` (exclusive; null: still in). ISO timestamps. */
export interface LegWindow {
  conditionId: string;
  from: string | null;
  until: string | null;
}

export type VolStatus = "ok" | "flagged" | "suspended";
export type PublicationState = "published" | "withheld";
export type Tier = "budget-implied" | "historical-clock";

/** The realized-variance clock of one tenor (lib/engine/volatility/clock.ts estimates it). */
export interface ClockEstimate {
  tier: Tier;
  speed: number;
  speedLo: number;
  speedHi: number;
  windowDays: number;
  coverage: number;
}

export interface TenorValue {
  pts: number;
  share: number;
  share_ci: [number, number] | null;
  share_meta: { ci_unavailable: boolean; mixture: boolean };
}

export interface AttributionLeg {
  delta: number;
  deltaClock: number;
  deltaPrice: number;
  gridOrder: number;
  label: string;
  legKey: string;
}

export interface Attribution {
  deltaPts: number;
  deltaPts2: number;
  gapSeconds: number | null;
  legs: AttributionLeg[];
  /** previous tick time, UTC without `Z`, six fractional digits; null on the first tick */
  prevComputedAt: string | null;
  reason: string | null;
  status: "ok" | "identity_breach" | "unavailable";
  tenorDays: number;
  units: "points squared";
  unitsPts: "points";
}

export interface GateFlag {
  gate: string;
  legKey: string | null;
  publicDetail: string;
}

export interface Component {
  leg_key: string;
  label: string;
  grid_order: number;
  condition_id: string;
  books_used: number;
  days_to_settlement: number | null;
  fbv_r_pts: number;
  gate_flags: string[];
  /** UTC without `Z`, six fractional digits */
  observed_at: string | null;
  p: number;
  passes_depth: boolean;
  tenor_pts: Record<string, number>;
  w: number;
}

export interface Counterfactual {
  /** inception anchor, ISO 8601 with microseconds and `Z` */
  anchorAt: string;
  anchorFingerprint: string;
  clockVersion: string;
  headlinePts: number;
  rPts: number;
  tenors: Record<string, { pts: number; share: number }>;
}

export interface TickLabels {
  clockHomogeneityDisclosure: string;
  /** the clock speed each published tenor used, full precision (1 on the calendar clock) */
  clockSpeed: Record<string, number>;
  composition: { leg_keys: string[]; n: number; version: string };
  devigVersion: string;
  tier: Record<string, Tier>;
  /** the computation attrDeltaHeadlinePts is measured from (the previous one, published or not), with `Z`; null on the first */
  attrDeltaFrom: string | null;
  /** whether that computation was published; null on the first */
  attrDeltaFromPublished: boolean | null;
}

/** One tenor's clock as the tick used it (full precision): the estimate itself. */
export type ClockInput = ClockEstimate;

/** One leg's inputs to a computation: quotes as read, and the de-vigged probability and budget weight used. */
export interface LegInput {
  conditionId: string;
  legKey: string;
  label: string;
  gridOrder: number;
  bid: number;
  ask: number;
  mid: number;
  depthUsd: number;
  /** present when the quote came from the venue's price history (no book, so no depth rule) */
  source?: "history";
  /** ISO 8601; null when the leg was never quoted (then it is not priced) */
  observedAt: string | null;
  /** ISO 8601 */
  settlementAt: string | null;
  daysToSettlement: number | null;
  resolved: boolean;
  /** de-vigged probability and share of the variance budget, full precision; null when not priced */
  p: number | null;
  w: number | null;
}

/** What a tick rests on, beyond the series definition: the bundle's volatility leg panel and clock. */
export interface VolInputs {
  clock: Record<string, ClockInput>;
  legs: LegInput[];
  /**
   * What this computation added to the realized-variance clock (probability squared, full
   * precision): realized = sum_j (p_j - p_j,prev)^2, predicted = the diffusion's variance over the
   * gap on calendar time; null when the hour does not count (absent in inputs stored before it was kept).
   */
  clockIncrement?: { realized: number; predicted: number } | null;
  /**
   * The quotes at t of the inception legs that are not in `legs` (they left the series since
   * inception), in inception order: with `legs` they are every input of the counterfactual
   * (absent in inputs stored before they were kept).
   */
  counterfactualLegs?: CounterfactualLegInput[];
}

/** An inception leg no longer in force, as the counterfactual priced it at t (quotes as read). */
export type CounterfactualLegInput = Omit<LegInput, "gridOrder" | "p" | "w">;

/** Exactly the spec's tick fields, plus compositionVersion (carried into history points). */
export interface VolTick {
  seriesId: string;
  computedAt: Date;
  headlinePts: number;
  headlineTenorDays: number;
  tenors: Record<string, TenorValue>;
  bandLoPts: number;
  bandHiPts: number;
  attrDeltaHeadlinePts: number;
  attribution: Attribution;
  budgetW: number;
  wTilde: number;
  effectiveN: number;
  sumRaw: number;
  fbvRPts: number;
  fbvRLabel: string;
  status: VolStatus;
  publicationState: PublicationState;
  revision: number;
  gateFlags: GateFlag[];
  components: Component[];
  counterfactual: Counterfactual;
  labels: TickLabels;
  clockVersion: string;
  devigVersion: string;
  methodologyVersion: string;
  definitionLine: string;
  targetType: string;
  units: string;
  compositionVersion: string;
  /** engine-only (not a spec field): published in the monthly bundle, never in the API tick */
  inputs: VolInputs;
}

export interface VolHistoryPoint {
  t: Date;
  headlinePts: number;
  tenors: Record<string, TenorValue>;
  tier: Record<string, Tier>;
  bandLoPts: number;
  bandHiPts: number;
  attrDeltaHeadlinePts: number;
  attrDeltaFrom: string | null;
  attrDeltaFromPublished: boolean | null;
  clockSpeed: Record<string, number>;
  cfHeadlinePts: number;
  anchorFingerprint: string;
  clockHomogeneityDisclosure: string;
  clockVersion: string;
  compositionVersion: string;
  devigVersion: string;
  methodologyVersion: string;
  effectiveN: number;
  fbvRLabel: string;
  fbvRPts: number;
  wTilde: number;
  gateNames: string[];
  publicationState: PublicationState;
  revision: number;
  status: VolStatus;
  units: string;
}

/** Frozen at the first tick; the counterfactual recomputes against it and its hash identifies it. */
export interface InceptionConfig {
  ticker: string;
  anchorAt: string;
  methodologyVersion: string;
  targetType: string;
  legs: string[];
  tenorsDays: number[];
  headlineTenorDays: number;
  devigVersion: string;
  clockVersion: string;
  gates: VolGates;
}

/** One UTC day of the realized-variance clock: realized and diffusion-predicted variance. */
export interface ClockBucket {
  day: string;
  /** the correctly rounded sums (fsum) of the day's hourly increments */
  realized: number;
  predicted: number;
  increments: number;
  /** the newest day only: its increments so far, from which its sums are taken */
  hours?: { realized: number[]; predicted: number[] };
}

export interface PrevLeg {
  conditionId: string;
  legKey: string;
  label: string;
  gridOrder: number;
  p: number;
  daysToSettlement: number | null;
  observedAt: string | null;
}

/** What the next tick needs from this one: attribution inputs and the clock's last observation. */
export interface PrevTick {
  computedAt: string;
  /** absent in states written before it was kept */
  publicationState?: PublicationState;
  headlinePts: number;
  headlineClockSpeed: number;
  legs: PrevLeg[];
}

/** JSON-safe state of one volatility series between ticks. */
export interface VolState {
  ticker: string;
  inception: { config: InceptionConfig; fingerprint: string };
  prev: PrevTick | null;
  clock: ClockBucket[];
  composition: { number: number; legKeys: string[] };
  degradedStreak: number;
  tickCount: number;
  retiredAt: string | null;
  retiredReason: string | null;
}

export interface VolStepResult {
  state: VolState;
  /** null once the series is retired (or when no leg has ever been quoted) */
  tick: VolTick | null;
}
