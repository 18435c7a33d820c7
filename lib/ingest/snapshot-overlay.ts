import Decimal from "decimal.js";
import type { MarketInfo, Snapshot } from "@/lib/engine/types";
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";

type Reader = Db | Prisma.TransactionClient;

/** How far before the first replayed hour ingested snapshots are loaded (an older one is stale anyway). */
const OVERLAY_LEAD_MS = 86_400_000;

/**
 * Ingested snapshots laid over the feed: at each hour the engine sees, per market, the newer of the
 * feed's latest snapshot and the latest ingested one at or before that hour; at the same time the
 * ingested one wins (it is a correction of the feed).
 */
export class SnapshotOverlay {
  private next = 0;
  private readonly latest = new Map<string, Snapshot>();

  constructor(private readonly rows: readonly Snapshot[]) {}

  get size(): number {
    return this.rows.length;
  }

  /** The engine's input at t: the feed's latest snapshots with ingested ones laid over them. */
  apply(t: Date, feed: readonly Snapshot[], universe: readonly MarketInfo[]): Snapshot[] {
    while (this.next < this.rows.length && (this.rows[this.next] as Snapshot).observedAt.getTime() <= t.getTime()) {
      const s = this.rows[this.next++] as Snapshot;
      this.latest.set(s.conditionId, s);
    }
    if (this.latest.size === 0) return feed as Snapshot[];
    const out: Snapshot[] = [];
    const seen = new Set<string>();
    for (const s of feed) {
      const ingested = this.latest.get(s.conditionId);
      out.push(ingested !== undefined && ingested.observedAt.getTime() >= s.observedAt.getTime() ? ingested : s);
      seen.add(s.conditionId);
    }
    for (const m of universe) {
      const ingested = this.latest.get(m.conditionId);
      if (ingested !== undefined && !seen.has(m.conditionId)) out.push(ingested);
    }
    return out;
  }
}

/** Loads the ingested snapshots that can matter to the hours from `from` to `until`. */
export async function loadOverlay(db: Reader, from: Date, until: Date): Promise<SnapshotOverlay> {
  const rows = await db.marketSnapshot.findMany({
    where: { ingested: true, observedAt: { gte: new Date(from.getTime() - OVERLAY_LEAD_MS), lte: until } },
    orderBy: { observedAt: "asc" },
    select: {
      conditionId: true,
      observedAt: true,
      bestBid: true,
      bestAsk: true,
      mid: true,
      depthUsd: true,
      resolved: true,
      outcome: true,
      source: true,
      market: { select: { legKey: true, label: true, settlementDate: true } },
    },
  });
  return new SnapshotOverlay(
    rows.map((r) => ({
      observedAt: r.observedAt,
      conditionId: r.conditionId,
      legKey: r.market.legKey,
      label: r.market.label,
      bestBid: new Decimal(r.bestBid.toString()),
      bestAsk: new Decimal(r.bestAsk.toString()),
      mid: new Decimal(r.mid.toString()),
      depthUsd: new Decimal(r.depthUsd.toString()),
      settlementDate: r.market.settlementDate,
      resolved: r.resolved,
      outcome: r.outcome === 0 || r.outcome === 1 ? r.outcome : null,
      ...(r.source === "history" ? { source: "history" as const } : {}),
    })),
  );
}
