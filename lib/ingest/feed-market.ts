import type { MarketInfo } from "@/lib/engine/types";

/** A market as a feed lists it (a venue's stored market row, or the demo's), with its resolution once known. */
export interface FeedMarket extends MarketInfo {
  resolvedAt: Date | null;
  outcome: 0 | 1 | null;
}
