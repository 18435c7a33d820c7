import type { EligibilityRule, MarketInfo, Snapshot } from "./types";

/** Static part of eligibility: theme, event family and market kind. */
export function matchesRule(rule: EligibilityRule, market: MarketInfo): boolean {
  if (rule.selectors !== undefined) {
    const own = new Set(market.selectors ?? []);
    if (!rule.selectors.some((s) => own.has(s))) return false;
  } else if (market.theme !== rule.theme) return false;
  if (rule.eventKeyPrefix !== null && !(market.eventKey ?? "").startsWith(rule.eventKeyPrefix)) return false;
  if (!rule.includePartitionLegs && market.legKey !== null) return false;
  return true;
}

/** A market may enter at t when it matches, is listed, unresolved, unsettled and freshly quoted. */
export function canEnter(
  rule: EligibilityRule,
  market: MarketInfo,
  snapshot: Snapshot | undefined,
  t: Date,
  stalenessLimitSeconds: number,
): snapshot is Snapshot {
  if (!matchesRule(rule, market)) return false;
  if (market.listedAt.getTime() > t.getTime()) return false;
  if (market.settlementDate !== null && market.settlementDate.getTime() <= t.getTime()) return false;
  if (snapshot === undefined || snapshot.resolved) return false;
  if (snapshot.observedAt.getTime() > t.getTime()) return false;
  if (!passesQuoteFilters(rule, market, snapshot, t)) return false;
  return t.getTime() - snapshot.observedAt.getTime() <= stalenessLimitSeconds * 1000;
}

/** The catalog's depth, spread and days-to-settlement filters (absent in the demo's rules). */
function passesQuoteFilters(rule: EligibilityRule, market: MarketInfo, snapshot: Snapshot, t: Date): boolean {
  // A price from the venue's history has no book: the depth rule cannot apply to it.
  if (rule.minDepthUsd !== undefined && snapshot.source !== "history" && snapshot.depthUsd.lessThan(rule.minDepthUsd)) return false;
  if (rule.maxSpread !== undefined && snapshot.bestAsk.minus(snapshot.bestBid).greaterThan(rule.maxSpread)) return false;
  const settles = market.settlementDate ?? snapshot.settlementDate;
  if (settles !== null) {
    const days = (settles.getTime() - t.getTime()) / 86_400_000;
    if (rule.minDaysToSettlement !== undefined && days < rule.minDaysToSettlement) return false;
    if (rule.maxDaysToSettlement !== undefined && rule.maxDaysToSettlement !== null && days > rule.maxDaysToSettlement) return false;
  }
  return true;
}
