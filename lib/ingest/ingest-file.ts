import "server-only";
import path from "node:path";
import type { Db } from "@/lib/db";
import Decimal from "decimal.js";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { historyHours, newestHistoryHours } from "@/lib/ingest/history-store";
import { IngestError, readSnapshots, type SnapshotRow } from "@/lib/ingest/read-snapshots";
import type { Prisma } from "@/lib/generated/prisma/client";

/** The selectors of the catalog's universe: every index rule's, and each venue series' event. */
async function catalogSelectors(tx: Prisma.TransactionClient): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of await tx.index.findMany({ where: { removedAt: null }, select: { eligibility: true } }))
    for (const s of (r.eligibility as { selectors?: string[] } | null)?.selectors ?? []) out.add(s);
  for (const r of await tx.volatilitySeries.findMany({
    where: { ceasedAt: null, venue: { not: "demo" } },
    select: { venue: true, event: true },
  }))
    out.add(`${r.venue}:event:${r.event}`);
  return out;
}

/** The selectors a file row answers to, from its venue, event, tags and series. */
function rowSelectors(r: SnapshotRow): string[] {
  if (r.venue === "polymarket")
    return [...r.tags.map((t) => `polymarket:tag:${t}`), ...(r.eventKey ? [`polymarket:event:${r.eventKey}`] : [])];
  if (r.venue === "kalshi")
    return [...(r.series ? [`kalshi:series:${r.series}`] : []), ...(r.eventKey ? [`kalshi:event:${r.eventKey}`] : [])];
  return [];
}

function unknownReason(r: SnapshotRow, selectors: string[]): string {
  if (r.venue === null)
    return `unknown market ${r.conditionId} (a new market needs venue and eventKey, tags or series to be matched to the catalog's universe)`;
  return `market ${r.conditionId} is not in the catalog's universe (${selectors.length ? selectors.join(", ") : `no event, tags or series given for ${r.venue}`})`;
}
import { NOTHING_RESTATED, restate, type RestateResult } from "@/lib/ingest/restate";

export interface IngestResult {
  file: string;
  rows: number;
  inserted: number;
  revised: number;
  unchanged: number;
  /** markets of the catalog's universe stored for the first time */
  created: number;
  /** what the engine recomputed from the new and corrected snapshots */
  restated: RestateResult;
}

type Tx = Prisma.TransactionClient;

/** A stored snapshot at a file row's market and time; `snapshotRow` false: a stored history price. */
interface StoredRead {
  bestBid: Decimal;
  bestAsk: Decimal;
  mid: Decimal;
  depthUsd: Decimal;
  resolved: boolean;
  outcome: number | null;
  revision: number;
  snapshotRow: boolean;
}

const keyOf = (conditionId: string, t: Date) => `${conditionId}|${t.toISOString()}`;

/** The newest stored time of each market (a snapshot row or a history price). */
async function newestStored(tx: Tx, ids: string[]): Promise<Map<string, Date | null>> {
  const latest = new Map(
    (
      await tx.marketSnapshot.groupBy({
        by: ["conditionId"],
        where: { conditionId: { in: ids } },
        _max: { observedAt: true },
      })
    ).map((g) => [g.conditionId, g._max.observedAt]),
  );
  for (const [id, t] of await newestHistoryHours(tx, ids)) {
    const s = latest.get(id);
    if (!s || t > s) latest.set(id, t);
  }
  return latest;
}

/** What is stored at the file's rows' markets and times: snapshot rows, and history prices a row corrects. */
async function storedAtRows(tx: Tx, rows: readonly SnapshotRow[], ids: string[]): Promise<Map<string, StoredRead>> {
  const existing = new Map<string, StoredRead>(
    (
      await tx.marketSnapshot.findMany({
        where: { OR: rows.map((r) => ({ conditionId: r.conditionId, observedAt: r.observedAt })) },
        select: {
          conditionId: true,
          observedAt: true,
          bestBid: true,
          bestAsk: true,
          mid: true,
          depthUsd: true,
          resolved: true,
          outcome: true,
          revision: true,
        },
      })
    ).map((s) => [keyOf(s.conditionId, s.observedAt), { ...s, snapshotRow: true }]),
  );
  // a stored history price is corrected by a snapshot row at its hour (which wins over it)
  if (rows.length === 0) return existing;
  const times = rows.map((r) => r.observedAt.getTime());
  const inFile = new Set(rows.map((r) => keyOf(r.conditionId, r.observedAt)));
  for (const h of await historyHours(tx, ids, new Date(Math.min(...times)), new Date(Math.max(...times)))) {
    const k = keyOf(h.conditionId, h.observedAt);
    if (inFile.has(k) && !existing.has(k))
      existing.set(k, {
        bestBid: new Decimal(h.bestBid),
        bestAsk: new Decimal(h.bestAsk),
        mid: new Decimal(h.mid),
        depthUsd: new Decimal(0),
        resolved: false,
        outcome: null,
        revision: 0,
        snapshotRow: false,
      });
  }
  return existing;
}

/**
 * The markets of the catalog's universe the file names for the first time; throws an IngestError
 * listing every row of an unknown market outside the universe and every row where time goes backwards.
 */
async function checkRows(
  tx: Tx,
  name: string,
  rows: readonly SnapshotRow[],
  ids: string[],
  existing: ReadonlyMap<string, StoredRead>,
): Promise<Map<string, { row: SnapshotRow; selectors: string[] }>> {
  const known = new Set(
    (await tx.market.findMany({ where: { conditionId: { in: ids } }, select: { conditionId: true } })).map(
      (m) => m.conditionId,
    ),
  );
  const latest = await newestStored(tx, ids);
  const universe = await catalogSelectors(tx);
  const problems: Array<{ file: string; line: number; reason: string }> = [];
  const lastInFile = new Map<string, Date>();
  const creating = new Map<string, { row: SnapshotRow; selectors: string[] }>();
  for (const r of rows) {
    if (!known.has(r.conditionId) && !creating.has(r.conditionId)) {
      const selectors = rowSelectors(r);
      if (selectors.some((s) => universe.has(s))) creating.set(r.conditionId, { row: r, selectors });
      else problems.push({ file: name, line: r.line, reason: unknownReason(r, selectors) });
    }
    const prev = lastInFile.get(r.conditionId);
    const stored = latest.get(r.conditionId);
    const isCorrection = existing.has(keyOf(r.conditionId, r.observedAt));
    if ((prev && r.observedAt <= prev) || (!isCorrection && stored && r.observedAt < stored)) {
      problems.push({
        file: name,
        line: r.line,
        reason: `time goes backwards for ${r.conditionId} at ${r.observedAt.toISOString()}`,
      });
    }
    lastInFile.set(r.conditionId, r.observedAt);
  }
  if (problems.length) throw new IngestError(problems);
  return creating;
}

const sameRead = (s: StoredRead, r: SnapshotRow) =>
  s.bestBid.equals(r.bestBid) &&
  s.bestAsk.equals(r.bestAsk) &&
  s.mid.equals(r.mid) &&
  s.depthUsd.equals(r.depthUsd) &&
  s.resolved === r.resolved &&
  s.outcome === r.outcome;

/** Stores the rows: new ones inserted, changed ones with revision + 1, the same ones left. Returns the earliest time stored. */
async function storeRows(
  tx: Tx,
  rows: readonly SnapshotRow[],
  existing: ReadonlyMap<string, StoredRead>,
  result: Omit<IngestResult, "restated">,
): Promise<Date | null> {
  let earliest: Date | null = null;
  for (const r of rows) {
    const s = existing.get(keyOf(r.conditionId, r.observedAt));
    const values = {
      bestBid: r.bestBid,
      bestAsk: r.bestAsk,
      mid: r.mid,
      depthUsd: r.depthUsd,
      resolved: r.resolved,
      outcome: r.outcome,
    };
    if (s && sameRead(s, r)) {
      result.unchanged++;
      continue;
    }
    if (!s) {
      await tx.marketSnapshot.create({
        data: { conditionId: r.conditionId, observedAt: r.observedAt, ...values, ingested: true },
      });
      result.inserted++;
    } else if (!s.snapshotRow) {
      await tx.marketSnapshot.create({
        data: {
          conditionId: r.conditionId,
          observedAt: r.observedAt,
          ...values,
          revision: 1,
          ingested: true,
          source: "history",
        },
      });
      result.revised++;
    } else {
      await tx.marketSnapshot.update({
        where: { conditionId_observedAt: { conditionId: r.conditionId, observedAt: r.observedAt } },
        data: { ...values, revision: s.revision + 1, ingested: true },
      });
      result.revised++;
    }
    if (earliest === null || r.observedAt < earliest) earliest = r.observedAt;
  }
  return earliest;
}

/** The file's rows stored and their hours recomputed, inside the transaction that holds the engine lock. */
async function ingestRows(tx: Tx, name: string, rows: readonly SnapshotRow[], now: Date): Promise<IngestResult> {
  const ids = [...new Set(rows.map((r) => r.conditionId))];
  const existing = await storedAtRows(tx, rows, ids);
  const creating = await checkRows(tx, name, rows, ids, existing);
  if (creating.size)
    await tx.market.createMany({
      data: [...creating.values()].map(({ row, selectors }) => ({
        conditionId: row.conditionId,
        venue: row.venue ?? "file",
        label: row.label,
        legKey: row.legKey,
        eventKey: row.eventKey,
        selectors,
        settlementDate: row.settlementDate,
        listedAt: row.observedAt,
      })),
    });
  const result: Omit<IngestResult, "restated"> = {
    file: name,
    rows: rows.length,
    inserted: 0,
    revised: 0,
    unchanged: 0,
    created: creating.size,
  };
  const earliest = await storeRows(tx, rows, existing, result);
  const restated = earliest === null ? NOTHING_RESTATED : await restate(tx, earliest, { now });
  return { ...result, restated };
}

/**
 * Stores one file of snapshots and recomputes what they change, in one transaction under the
 * engine lock. The same file twice changes nothing; a corrected snapshot (same market and time,
 * other values) is stored with revision + 1, and published values it moves beyond the materiality
 * threshold are restated. Unknown markets and time going backwards refuse the whole file.
 */
export async function ingestFile(
  prisma: Db,
  file: string,
  text: string,
  options: { now?: Date } = {},
): Promise<IngestResult> {
  const name = path.basename(file);
  const rows = readSnapshots(name, text);
  const result = await prisma.$transaction(
    async (tx) => {
      // Waits for a tick in progress; the scheduler skips its turn while a file is computed.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
      return ingestRows(tx, name, rows, options.now ?? new Date());
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
  return result;
}
