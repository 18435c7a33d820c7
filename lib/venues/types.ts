import type { Quote } from "./book";

export type VenueName = "polymarket" | "kalshi";

/** A venue market as the collector stores it (a market row) and reads it (its book). */
export interface VenueMarket {
  venue: VenueName;
  /** Polymarket's condition id; `kalshi:` + the Kalshi market ticker */
  conditionId: string;
  /** what the book is read by: the Polymarket YES token id, the Kalshi market ticker */
  venueRef: string;
  label: string;
  /** set for the legs of a mutually exclusive event */
  legKey: string | null;
  eventKey: string;
  selectors: string[];
  settlementDate: Date | null;
  /** closed for trading */
  closed: boolean;
  resolved: boolean;
  outcome: 0 | 1 | null;
  /** Kalshi: settled before the historical cutoff, served only by `/historical/markets` (and its candlesticks) */
  historical?: boolean;
}

/** A mutually exclusive event: the legs of a volatility series. */
export interface VenueEventLegs {
  venue: VenueName;
  event: string;
  title: string;
  legs: VenueMarket[];
  settlementDate: string | null;
}

export type BookRead = { conditionId: string; quote: Quote } | { conditionId: string; problem: string };

/** A venue connector: discovery of a universe and of events, and books. */
export interface VenueConnector {
  readonly venue: VenueName;
  discover(selectors: readonly string[]): Promise<{ markets: VenueMarket[]; problems: string[] }>;
  /**
   * The markets of the selectors' universes that closed at `since` or later, which `discover`
   * (open markets only) leaves out: a back-calculation from a base date needs them, or its
   * history would hold only the markets that survived to the launch.
   */
  closedSince(selectors: readonly string[], since: Date): Promise<{ markets: VenueMarket[]; problems: string[] }>;
  event(event: string): Promise<VenueEventLegs | null>;
  /** The current state of held markets that discovery no longer lists (closed, or settled). */
  lookup(conditionIds: readonly string[]): Promise<VenueMarket[]>;
  books(markets: readonly VenueMarket[]): Promise<BookRead[]>;
}

/** Markets found by several selectors: each market once, carrying every selector that found it. */
export class DiscoveredMarkets {
  private readonly byId = new Map<string, VenueMarket>();

  add(markets: readonly VenueMarket[]): void {
    for (const m of markets) {
      const prior = this.byId.get(m.conditionId);
      this.byId.set(m.conditionId, prior ? { ...m, selectors: [...new Set([...prior.selectors, ...m.selectors])] } : m);
    }
  }

  list(): VenueMarket[] {
    return [...this.byId.values()];
  }
}

/** What one collector run did at one venue (lib/ingest/collector.ts); the incident rule reads it. */
export interface VenueRun {
  venue: VenueName;
  requests: number;
  markets: number;
  newMarkets: number;
  snapshots: number;
  resolved: number;
  /** markets whose book could not be read this hour: stale, never carried forward as fresh */
  stale: number;
  /** series whose leg set changed this run (the venue listed an outcome, or one left) */
  legChanges: string[];
  problems: string[];
}
