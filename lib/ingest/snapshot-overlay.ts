import { dec } from "@/lib/engine/decimal";
import type { MarketInfo, Snapshot } from "@/lib/engine/types";
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import { loadHistorySnapshots } from "@/lib/ingest/history-store";
import type { HeldHistory, HistoryMarketInfo } from "@/lib/ingest/history-held";

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

  /** `rows` in time order; `cover`: the span they are all the rows of (null: not known). */
  constructor(
    readonly rows: readonly Snapshot[],
    readonly cover: { since: Date; until: Date } | null = null,
  ) {}

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

/** One snapshot as the overlay query sends it: condition id, ms, bid, ask, mid, depth, resolved, outcome, source, leg key, label, settlement day. */
type OverlayRow = [
  string,
  number,
  string,
  string,
  string,
  string,
  boolean,
  number | null,
  string,
  string | null,
  string,
  string | null,
];

/**
 * Loads the ingested snapshots and stored history prices that can matter to the hours from `from` to `until`. A
 * back-calculation reads millions of them: the database sends them as one JSON array (decimals as
 * text), which costs far less than a result row per snapshot through the query builder.
 * `after` is the overlay of the time just before `from`, when the caller replays chunk after
 * chunk: the rows of the day before `from` are taken from it, and only the rows after its end are
 * loaded (the same rows as without it, each read once). `held`: history prices a back-calculation
 * holds in memory (exactly the stored ones of its markets and days), taken from there instead.
 */
export async function loadOverlay(
  db: Reader,
  from: Date,
  until: Date,
  after?: SnapshotOverlay,
  held?: { history: HeldHistory; markets: ReadonlyMap<string, HistoryMarketInfo> },
): Promise<SnapshotOverlay> {
  const lead = from.getTime() - OVERLAY_LEAD_MS;
  const cover = after?.cover;
  if (after && (!cover || cover.since.getTime() > lead || cover.until.getTime() >= from.getTime()))
    throw new Error("loadOverlay: the overlay to continue does not cover the day before this one's first hour");
  // rows after the previous overlay's end (a book read may lie between two hours), else from a day before `from`
  const since = cover ? cover.until : new Date(lead);
  const sinceOp = after ? ">" : ">=";
  const [answer] = await db.$queryRawUnsafe<Array<{ rows: string | null }>>(
    `SELECT json_agg(json_build_array(s."conditionId", (extract(epoch FROM s."observedAt") * 1000)::float8, s."bestBid"::text, s."bestAsk"::text, s.mid::text,
       s."depthUsd"::text, s.resolved, s.outcome, s.source, m."legKey", m.label, m."settlementDate"::text) ORDER BY s."observedAt")::text AS rows
     FROM market_snapshots s JOIN markets m ON m."conditionId" = s."conditionId"
     WHERE s.ingested AND s."observedAt" ${sinceOp} $1 AND s."observedAt" <= $2`,
    since,
    until,
  );
  const rows = answer?.rows ? (JSON.parse(answer.rows) as OverlayRow[]) : [];
  const zero = dec("0");
  const settlements = new Map<string, Date | null>();
  const settlementOf = (text: string | null) => {
    if (text === null) return null;
    let d = settlements.get(text);
    if (d === undefined) settlements.set(text, (d = new Date(`${text}T00:00:00.000Z`)));
    return d;
  };
  // history prices are on the hour: after `since` is from the next millisecond on
  const lo = after ? new Date(since.getTime() + 1) : since;
  const stored = await loadHistorySnapshots(db, lo, until, settlementOf, held?.history);
  const inMemory = held ? held.history.snapshots(lo.getTime(), until.getTime(), held.markets) : [];
  const history = inMemory.length ? mergeByTime(stored, inMemory) : stored;
  const snapshots = rows.map(
    ([conditionId, ms, bid, ask, mid, depth, resolved, outcome, source, legKey, label, settlement]): Snapshot => {
      // Decimals are immutable: equal cells share one (dec gives the same decimal for the same text)
      const bestBid = dec(bid);
      const bestAsk = dec(ask);
      return {
        observedAt: new Date(ms),
        conditionId,
        legKey,
        label,
        bestBid,
        bestAsk,
        mid: dec(mid),
        depthUsd: depth === "0.00" ? zero : dec(depth),
        settlementDate: settlementOf(settlement),
        resolved,
        outcome: outcome === 0 || outcome === 1 ? outcome : null,
        ...(source === "history" ? { source: "history" as const } : {}),
      };
    },
  );
  const loaded = history.length ? mergeByTime(history, snapshots) : snapshots;
  if (!after) return new SnapshotOverlay(loaded, { since, until });
  // the previous overlay's rows from a day before `from` on, all at or before its end, then the loaded ones
  let first = 0;
  while (first < after.rows.length && after.rows[first]!.observedAt.getTime() < lead) first++;
  return new SnapshotOverlay([...after.rows.slice(first), ...loaded], { since: new Date(lead), until });
}

/** Two lists in time order as one; at the same time `first`'s come first (a snapshot row wins over a history price). */
function mergeByTime(first: readonly Snapshot[], second: readonly Snapshot[]): Snapshot[] {
  const out: Snapshot[] = new Array<Snapshot>(first.length + second.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < first.length && j < second.length)
    out[k++] = first[i]!.observedAt.getTime() <= second[j]!.observedAt.getTime() ? first[i++]! : second[j++]!;
  while (i < first.length) out[k++] = first[i++]!;
  while (j < second.length) out[k++] = second[j++]!;
  return out;
}
