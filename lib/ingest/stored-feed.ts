import { MS_PER_HOUR, nextHour } from "@/lib/engine/time-format";
import type { MarketInfo, Snapshot } from "@/lib/engine/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { DemoState } from "@/lib/ingest/demo-market";
import type { FeedMarket } from "@/lib/ingest/feed-market";

/** Everything a feed gives the engine for one hour. */
export interface FeedHour {
  t: Date;
  /** snapshots first seen this hour that the runner stores (the demo's; a stored feed's are stored already) */
  observed: Snapshot[];
  /** the feed's own latest snapshot per market (stored snapshots are laid over it by the overlay) */
  latest: Snapshot[];
  universe: FeedMarket[];
  resolvedNow: FeedMarket[];
}

/** What the engine reads hour by hour: the demo simulator or the stored snapshots of venues and files. */
export interface EngineFeed {
  readonly start: Date;
  cursor(): Date | null;
  advance(): FeedHour;
  state(): FeedState;
}

/** A stored feed's position; the demo's state is its generator's. */
export interface StoredFeedState {
  feed: "stored";
  start: string;
  hour: string | null;
}
export type FeedState = DemoState | StoredFeedState;

export const isStoredFeedState = (s: unknown): s is StoredFeedState =>
  typeof s === "object" && s !== null && (s as { feed?: unknown }).feed === "stored";

/** Resolved markets stay in the universe this long (as in the demo), so their exit is priced at settlement. */
const KEEP_RESOLVED_MS = 24 * MS_PER_HOUR;

/**
 * The feed of a service without the demo: the universe is the stored market rows (venue
 * collectors and ingested files create them), the prices are the stored snapshots, which the
 * runner lays over this (empty) feed.
 */
export class StoredFeed implements EngineFeed {
  private hour: Date | null;
  /** the last hour's universe: handed out again while no market enters or leaves (the engine caches per array) */
  private universe: FeedMarket[] = [];

  constructor(
    readonly start: Date,
    hour: Date | null,
    private readonly markets: readonly FeedMarket[],
  ) {
    this.hour = hour;
  }

  cursor(): Date | null {
    return this.hour;
  }

  advance(): FeedHour {
    const t = this.hour ? nextHour(this.hour) : this.start;
    this.hour = t;
    const universe = this.markets.filter(
      (m) =>
        m.listedAt.getTime() <= t.getTime() &&
        (m.resolvedAt === null || t.getTime() - m.resolvedAt.getTime() < KEEP_RESOLVED_MS),
    );
    if (universe.length !== this.universe.length || universe.some((m, i) => m !== this.universe[i]))
      this.universe = universe;
    return { t, observed: [], latest: [], universe: this.universe, resolvedNow: [] };
  }

  state(): StoredFeedState {
    return { feed: "stored", start: this.start.toISOString(), hour: this.hour?.toISOString() ?? null };
  }
}

/** Every market row that is not the demo's, as the engine's universe sees it. */
export async function loadStoredMarkets(tx: Prisma.TransactionClient): Promise<FeedMarket[]> {
  const rows = await tx.market.findMany({
    where: { venue: { not: "demo" } },
    select: {
      conditionId: true,
      label: true,
      legKey: true,
      eventKey: true,
      theme: true,
      selectors: true,
      settlementDate: true,
      listedAt: true,
      resolvedAt: true,
      outcome: true,
    },
    orderBy: { listedAt: "asc" },
  });
  return rows.map((r): FeedMarket => ({
    conditionId: r.conditionId,
    label: r.label,
    legKey: r.legKey,
    eventKey: r.eventKey,
    theme: r.theme,
    selectors: r.selectors,
    settlementDate: r.settlementDate,
    listedAt: r.listedAt,
    resolvedAt: r.resolvedAt,
    outcome: r.outcome === 0 || r.outcome === 1 ? r.outcome : null,
  }));
}

export type { MarketInfo };
