import type Decimal from "decimal.js";

/** One market's order-book snapshot for one hour. Prices are probabilities in [0, 1]. */
export interface Snapshot {
  observedAt: Date;
  conditionId: string;
  legKey: string | null;
  label: string;
  bestBid: Decimal;
  bestAsk: Decimal;
  mid: Decimal;
  depthUsd: Decimal;
  settlementDate: Date | null;
  resolved: boolean;
  outcome: 0 | 1 | null;
  /** `history`: read from the venue's price history, which has no book, so no depth (absent: a book read) */
  source?: "history";
}

/** Static facts about a listed market. */
export interface MarketInfo {
  conditionId: string;
  label: string;
  legKey: string | null;
  eventKey: string | null;
  theme: string;
  settlementDate: Date | null;
  listedAt: Date;
  /** catalog selectors the market answers to (venue markets; the demo's match on theme) */
  selectors?: readonly string[];
}

/** Serializable eligibility: a market belongs to an index when every stated condition holds. */
export interface EligibilityRule {
  theme: string;
  /** when set, the market's eventKey must start with this prefix */
  eventKeyPrefix: string | null;
  /** partition legs (legKey set) are measured by the volatility family unless this is true */
  includePartitionLegs: boolean;
  /** venue catalogs: the market must answer to one of these selectors (instead of the theme) */
  selectors?: string[];
  /** venue catalogs: quote filters applied when a market may enter */
  minDepthUsd?: number;
  maxSpread?: number;
  minDaysToSettlement?: number;
  maxDaysToSettlement?: number | null;
}

export type MaturityType = "PERPETUAL" | "DATED";

export interface IndexDefinition {
  ticker: string;
  name: string;
  description: string;
  theme: string;
  inceptionAt: Date;
  maturityType: MaturityType;
  methodologyVersion: string;
  stalenessLimitSeconds: number;
  eligibility: EligibilityRule;
  listed: boolean;
  /** set when the index was removed from the catalog: no level after it */
  ceasedAt?: Date | null;
}

/** A constituent as held in state: weight and the last price the engine used (decimal strings). */
export interface IndexMember {
  conditionId: string;
  label: string;
  weight: string;
  lastPrice: string;
  lastObservedAt: string;
}

/** JSON-safe chain-link state of one index; decimals are full-precision strings. */
export interface IndexState {
  ticker: string;
  inceptionAt: string;
  compositionVersion: string;
  compositionNumber: number;
  compositionEffectiveAt: string;
  members: IndexMember[];
  /** unrounded level at the current link k */
  linkLevel: string;
  /** basket value of the current composition at k (the denominator) */
  linkBasket: string;
  /** linkLevel / linkBasket: the level per unit of basket value (inverse divisor), unrounded */
  linkFactor: string;
  lastLevel: string | null;
  lastLevelUnrounded: string | null;
  lastComputedAt: string | null;
  lastStale: boolean;
  ceasedAt: string | null;
  resolvedAt: string | null;
  resolvedConstituentCount: number;
  reconstitutionCount: number;
}

export interface DataQuality {
  freshDataPct: number;
  freshMarketsCount: number;
  staleMarketsCount: number;
  totalMarketsCount: number;
}

/** The price one constituent contributed to a level: its mid, or its 0/1 settlement once resolved. */
export interface ConstituentPrice {
  conditionId: string;
  /** full precision */
  price: string;
  source: "mid" | "settlement";
  /** ISO 8601 of the snapshot the price comes from */
  observedAt: string;
  stale: boolean;
}

/** Everything a level rests on: L_t = baseLevel * sum(w_i p_i,t) / baseBasketValue of the pricing composition. */
export interface LevelInputs {
  /** the composition whose basket priced this level (at a link: the outgoing one) */
  pricingVersion: string;
  /** unrounded level and basket value at that composition's start (100 and the inception basket for v1) */
  baseLevel: string;
  baseBasketValue: string;
  /** every priced constituent, and at a link the entrants too */
  constituents: ConstituentPrice[];
}

export interface LevelPoint {
  t: Date;
  /** eight decimals, ROUND_HALF_EVEN */
  indexLevel: string;
  /** full precision, for audit and the recomputation check */
  indexLevelUnrounded: string;
  basketValue: string;
  stale: boolean;
  compositionVersion: string;
  dataQuality: DataQuality;
  inputs: LevelInputs;
}

export interface LinkPrice {
  conditionId: string;
  label: string;
  price: string;
  observedAt: string;
  role: "in" | "out" | "kept";
}

export interface LinkMarketIn {
  conditionId: string;
  label: string;
  weight: string;
  price: string;
}

export interface LinkMarketOut {
  conditionId: string;
  label: string;
  weight: string;
  price: string;
  reason: "resolved";
  outcome: 0 | 1 | null;
}

/** The chain-link arithmetic of one reconstitution; enough to recompute every level. */
export interface ReconstitutionRecord {
  completedAt: Date;
  addedMarketCount: number;
  removedMarketCount: number;
  fromVersion: string;
  toVersion: string;
  /** published level at the link (identical under both compositions) */
  levelAtLink: string;
  levelAtLinkUnrounded: string;
  oldBasketValue: string;
  newBasketValue: string;
  oldLinkFactor: string;
  linkFactor: string;
  marketsIn: LinkMarketIn[];
  marketsOut: LinkMarketOut[];
  pricesUsed: LinkPrice[];
}

export interface CompositionRecord {
  version: string;
  effectiveAt: Date;
  members: { conditionId: string; label: string; targetWeight: string }[];
  /** basket value of this composition at effectiveAt and the unrounded level it links to */
  baseBasketValue: string;
  baseLevel: string;
}

export interface IndexStepResult {
  state: IndexState;
  /** null once the index has ceased or resolved (no further levels) */
  level: LevelPoint | null;
  reconstitution: ReconstitutionRecord | null;
  composition: CompositionRecord | null;
}

export type IndexPublicStatus = "active" | "ceased" | "resolved";
