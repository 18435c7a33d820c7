import "server-only";
import fs from "node:fs";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { BulkWrite, Sql } from "@/lib/db";
import { orphanFiles, readLines } from "@/lib/plumbing/journal";

// A batch of metered requests: the counters (key, hour, endpoint, status class), each key's last
// use and its requests, built from the meter's records (lib/keys/usage-meter.ts) or read back from
// a usage journal file, and written to the database once: one transaction marked with the
// journal file's name, so a file replayed after a crash counts nothing twice. The request log is
// insert-only; its rows are pruned by age (REQUEST_LOG_DAYS), not per key.

/** What the request log keeps of one request besides its key, time and status (nothing secret). */
export interface RequestDetail {
  requestId: string;
  method: string;
  /** The path with its query; a value that looks like an API key is replaced (see logPath). */
  path: string;
  /** The error code of the answer (`not_found`, `rate_limited`, ...); null for a success. */
  errorCode: string | null;
}

/** One request of the request log. */
export interface LoggedRequest extends RequestDetail {
  keyId: string;
  atMs: number;
  endpoint: string;
  status: number;
}

/** Requests the portal shows per key; a batch keeps at most about twice this many per key. */
export const REQUEST_LOG_SIZE = 100;

export interface Batch {
  counts: Map<string, number>;
  lastUsed: Map<string, number>;
  /** Per key, its latest requests (a key sending more than 2 x REQUEST_LOG_SIZE in one batch keeps its last REQUEST_LOG_SIZE). */
  requests: Map<string, LoggedRequest[]>;
  /** The journal file these counts are in; null when they were never journaled. */
  file: string | null;
}

export const emptyBatch = (file: string | null): Batch => ({
  counts: new Map(),
  lastUsed: new Map(),
  requests: new Map(),
  file,
});

/** A counter's id in a batch: key, hour, endpoint and status class. */
export const counterId = (keyId: string, hourMs: number, endpoint: string, cls: string) =>
  `${keyId}|${new Date(hourMs).toISOString()}|${endpoint}|${cls}`;

export function count(batch: Batch, id: string, keyId: string, atMs: number, n = 1): void {
  batch.counts.set(id, (batch.counts.get(id) ?? 0) + n);
  const last = batch.lastUsed.get(keyId);
  if (last === undefined || last < atMs) batch.lastUsed.set(keyId, atMs);
}

export function logRequest(batch: Batch, entry: LoggedRequest): void {
  let list = batch.requests.get(entry.keyId);
  if (!list) batch.requests.set(entry.keyId, (list = []));
  list.push(entry);
  if (list.length >= 2 * REQUEST_LOG_SIZE) list.splice(0, list.length - REQUEST_LOG_SIZE);
}

/** How many requests a batch counts. */
export function requestsIn(batch: Batch): number {
  let n = 0;
  for (const c of batch.counts.values()) n += c;
  return n;
}

/** Reads a usage journal file (one JSON array a line, lib/keys/usage-meter.ts) into a batch. */
export function readUsageFile(file: string): Batch {
  const batch = emptyBatch(file);
  for (const line of readLines(file)) {
    let fields: unknown[];
    try {
      fields = JSON.parse(line) as unknown[];
    } catch {
      continue; // a line cut by a crash mid-write was never answered: nothing was charged for it
    }
    const [keyId, hourMs, endpoint, cls, atMs, status, requestId, method, logged, errorCode] = fields;
    if (typeof keyId !== "string" || typeof endpoint !== "string" || typeof cls !== "string") continue;
    if (typeof hourMs !== "number" || typeof atMs !== "number" || !Number.isFinite(hourMs + atMs)) continue;
    count(batch, counterId(keyId, hourMs, endpoint, cls), keyId, atMs);
    if (typeof status === "number" && typeof requestId === "string" && typeof method === "string") {
      if (typeof logged !== "string") continue;
      const code = typeof errorCode === "string" ? errorCode : null;
      logRequest(batch, { keyId, atMs, endpoint, status, requestId, method, path: logged, errorCode: code });
    }
  }
  return batch;
}

/** Records the batch's journal file as applied: false when it was applied before (nothing is then to be written). */
async function firstTime(sql: Sql, batch: Batch): Promise<boolean> {
  if (batch.file === null) return true;
  const inserted = await sql(
    `INSERT INTO usage_journal_segments (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`,
    path.basename(batch.file),
  );
  return inserted > 0;
}

async function writeCounters(sql: Sql, batch: Batch): Promise<void> {
  const rows = [...batch.counts].map(([id, n]) => {
    const [keyId, hour, endpoint, cls] = id.split("|");
    return { keyId, hour, endpoint, cls, n };
  });
  if (rows.length === 0) return;
  await sql(
    `INSERT INTO usage_counters ("keyId", hour, endpoint, "statusClass", count)
     SELECT r."keyId"::uuid, r.hour::timestamptz, r.endpoint, r.cls, r.n
     FROM jsonb_to_recordset($1::jsonb) AS r("keyId" text, hour text, endpoint text, cls text, n int)
     WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r."keyId"::uuid)
     ON CONFLICT ("keyId", hour, endpoint, "statusClass") DO UPDATE SET count = usage_counters.count + EXCLUDED.count`,
    JSON.stringify(rows),
  );
}

/**
 * Request-log rows a statement inserts. The embedded database runs a statement on the server's
 * own thread (2,000 rows, a busy flush, held it about 100 ms); the event loop turns between these
 * statements, so the requests that came in meanwhile are answered.
 */
const REQUEST_ROWS_PER_STATEMENT = 200;

async function writeRequests(sql: Sql, batch: Batch): Promise<void> {
  const rows = [...batch.requests.values()].flatMap((list) => list.slice(-REQUEST_LOG_SIZE));
  for (let at = 0; at < rows.length; at += REQUEST_ROWS_PER_STATEMENT) {
    if (at > 0) await nextTurn();
    await sql(
      `INSERT INTO request_log ("keyId", at, "requestId", method, endpoint, path, status, "errorCode")
       SELECT r."keyId"::uuid, to_timestamp(r."atMs" / 1000.0), r."requestId", r.method, r.endpoint, r.path, r.status, r."errorCode"
       FROM json_to_recordset($1::json) AS r("keyId" text, "atMs" bigint, "requestId" text, method text, endpoint text, path text, status int, "errorCode" text)
       WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r."keyId"::uuid)`,
      JSON.stringify(rows.slice(at, at + REQUEST_ROWS_PER_STATEMENT)),
    );
  }
}

async function writeLastUsed(sql: Sql, batch: Batch): Promise<void> {
  const used = [...batch.lastUsed].map(([keyId, at]) => ({ keyId, at: new Date(at).toISOString() }));
  if (used.length === 0) return;
  await sql(
    `UPDATE api_keys k SET "lastUsedAt" = GREATEST(COALESCE(k."lastUsedAt", u.at::timestamptz), u.at::timestamptz)
     FROM jsonb_to_recordset($1::jsonb) AS u("keyId" text, at text) WHERE k.id = u."keyId"::uuid`,
    JSON.stringify(used),
  );
}

/**
 * Writes one batch in one transaction on the database's driver (Database.bulkWrite: the request
 * log of a busy flush is a megabyte of JSON): its counters, its requests (inserted, never
 * updated) and its keys' last use. A journaled batch records its file's name in usage_journal_segments first;
 * a name already there was applied (a commit whose answer was lost, a file replayed after a
 * crash), so nothing is written twice. The journal file is deleted once it is in the database.
 */
export async function applyBatch(bulkWrite: BulkWrite, batch: Batch): Promise<void> {
  await bulkWrite(async (sql) => {
    if (!(await firstTime(sql, batch))) return;
    await writeCounters(sql, batch);
    await writeRequests(sql, batch);
    await writeLastUsed(sql, batch);
  });
  if (batch.file) fs.rmSync(batch.file, { force: true });
}

/**
 * Drops request-log rows older than `logDays` days, and the names of journal files applied more
 * than 30 days ago (a file is applied and deleted in moments; its name is kept long after, for a
 * replay).
 */
export async function pruneUsage(bulkWrite: BulkWrite, logDays: number): Promise<void> {
  await bulkWrite(async (sql) => {
    await sql(`DELETE FROM request_log WHERE at < now() - make_interval(days => $1)`, logDays);
    await sql(`DELETE FROM usage_journal_segments WHERE "appliedAt" < now() - interval '30 days'`);
  });
}

/**
 * Writes to the database the usage journals in `dataDir`/journal of processes that are no longer
 * running (an instance that never came back, its data directory brought here), then removes them.
 * Each file's transaction is marked with its name, so a file replayed twice counts once.
 */
export async function replayUsage(bulkWrite: BulkWrite, dataDir: string): Promise<{ files: number; requests: number }> {
  let files = 0;
  let requests = 0;
  for (const file of await orphanFiles(dataDir, "usage")) {
    const batch = readUsageFile(file);
    requests += requestsIn(batch);
    if (batch.counts.size === 0) fs.rmSync(file, { force: true });
    else await applyBatch(bulkWrite, batch);
    files += 1;
  }
  return { files, requests };
}
