import type { EligibilityRule, MarketInfo, Snapshot } from "./types";

/** Why a market is outside an index's universe (the static rule). */
export type RuleMismatch = "outside-universe" | "event-prefix" | "partition-leg";

/** Why a market may not enter an index at t; null when it may. */
export type EntryBlock =
  | RuleMismatch
  | "not-listed-yet"
  | "settled"
  | "no-quote"
  | "resolved"
  | "quote-after-t"
  | "depth"
  | "spread"
  | "too-close-to-settlement"
  | "too-far-from-settlement"
  | "stale";

/** The first static condition a market fails: theme (or selectors), event family, market kind. */
export function ruleMismatch(rule: EligibilityRule, market: MarketInfo): RuleMismatch | null {
  if (rule.selectors !== undefined) {
    const own = market.selectors ?? [];
    if (!rule.selectors.some((s) => own.includes(s))) return "outside-universe";
  } else if (market.theme !== rule.theme) return "outside-universe";
  if (rule.eventKeyPrefix !== null && !(market.eventKey ?? "").startsWith(rule.eventKeyPrefix)) return "event-prefix";
  if (!rule.includePartitionLegs && market.legKey !== null) return "partition-leg";
  return null;
}

/** Static part of eligibility: theme, event family and market kind. */
export function matchesRule(rule: EligibilityRule, market: MarketInfo): boolean {
  return ruleMismatch(rule, market) === null;
}

/** Days from t to the market's settlement (fractional); null when no settlement date is known. */
export function daysToSettlement(market: MarketInfo, snapshot: Snapshot, t: Date): number | null {
  const settles = market.settlementDate ?? snapshot.settlementDate;
  return settles === null ? null : (settles.getTime() - t.getTime()) / 86_400_000;
}

/**
 * The first condition that keeps a market out of an index at t: it must match, be listed,
 * unresolved, unsettled, pass the catalog's quote filters and be freshly quoted. Null: it may enter.
 */
export function entryBlock(
  rule: EligibilityRule,
  market: MarketInfo,
  snapshot: Snapshot | undefined,
  t: Date,
  stalenessLimitSeconds: number,
): EntryBlock | null {
  const mismatch = ruleMismatch(rule, market);
  if (mismatch !== null) return mismatch;
  if (market.listedAt.getTime() > t.getTime()) return "not-listed-yet";
  if (market.settlementDate !== null && market.settlementDate.getTime() <= t.getTime()) return "settled";
  if (snapshot === undefined) return "no-quote";
  if (snapshot.resolved) return "resolved";
  if (snapshot.observedAt.getTime() > t.getTime()) return "quote-after-t";
  const quote = quoteFilterBlock(rule, market, snapshot, t);
  if (quote !== null) return quote;
  return t.getTime() - snapshot.observedAt.getTime() <= stalenessLimitSeconds * 1000 ? null : "stale";
}

/** A market may enter at t when it matches, is listed, unresolved, unsettled and freshly quoted. */
export function canEnter(
  rule: EligibilityRule,
  market: MarketInfo,
  snapshot: Snapshot | undefined,
  t: Date,
  stalenessLimitSeconds: number,
): snapshot is Snapshot {
  return snapshot !== undefined && entryBlock(rule, market, snapshot, t, stalenessLimitSeconds) === null;
}

/** The catalog's depth, spread and days-to-settlement filters (absent in the demo's rules). */
function quoteFilterBlock(rule: EligibilityRule, market: MarketInfo, snapshot: Snapshot, t: Date): EntryBlock | null {
  // A price from the venue's history has no book: the depth rule cannot apply to it.
  if (rule.minDepthUsd !== undefined && snapshot.source !== "history" && snapshot.depthUsd.lessThan(rule.minDepthUsd))
    return "depth";
  if (rule.maxSpread !== undefined && snapshot.bestAsk.minus(snapshot.bestBid).greaterThan(rule.maxSpread))
    return "spread";
  const days = daysToSettlement(market, snapshot, t);
  if (days !== null) {
    if (rule.minDaysToSettlement !== undefined && days < rule.minDaysToSettlement) return "too-close-to-settlement";
    if (rule.maxDaysToSettlement !== undefined && rule.maxDaysToSettlement !== null && days > rule.maxDaysToSettlement)
      return "too-far-from-settlement";
  }
  return null;
}
