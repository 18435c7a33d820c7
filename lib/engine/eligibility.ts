import type { EligibilityRule, MarketInfo, Snapshot } from "./types";

/** Static part of eligibility: theme, event family and market kind. */
export function matchesRule(rule: EligibilityRule, market: MarketInfo): boolean {
  if (market.theme !== rule.theme) return false;
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
  return t.getTime() - snapshot.observedAt.getTime() <= stalenessLimitSeconds * 1000;
}
