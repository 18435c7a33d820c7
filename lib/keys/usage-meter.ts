import "server-only";
import fs from "node:fs";
import path from "node:path";
import { setImmediate as yieldTurn } from "node:timers/promises";
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import { KEY_PREFIX } from "@/lib/keys/api-key";
import { orphanFiles, readLines, type Journal, type Journals } from "@/lib/plumbing/journal";
import type { Shutdown } from "@/lib/plumbing/shutdown";

export type StatusClass = "2xx" | "4xx" | "429" | "5xx";

export function statusClass(status: number): StatusClass {
  if (status === 429) return "429";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "2xx";
}

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

/** Requests kept per key: the request log's length, in memory and in request_log. */
export const REQUEST_LOG_SIZE = 100;

/** What one journal file (or, before the journal is open, memory alone) holds. */
interface Batch {
  counts: Map<string, number>;
  lastUsed: Map<string, number>;
  /** Per key, its latest requests (at most about 2 x REQUEST_LOG_SIZE; the flush keeps the last REQUEST_LOG_SIZE). */
  requests: Map<string, LoggedRequest[]>;
  /** The journal file these counts are in; null when they were never journaled. */
  file: string | null;
  /** How many of the batch's transactions (`apply`) are done: the counted one first, then the request log's slices. */
  applied: number;
}

interface Pending {
  current: Batch;
  /** Closed batches not yet in the database (a failed flush keeps them for the next). */
  closed: Batch[];
  journal: Journal | null;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
  prunedAt: number;
}

const emptyBatch = (file: string | null): Batch => ({
  counts: new Map(),
  lastUsed: new Map(),
  requests: new Map(),
  file,
  applied: 0,
});

const HOUR_MS = 3_600_000;

/** A counter's id in a batch: key, hour, endpoint and status class. */
const counterId = (keyId: string, hourMs: number, endpoint: string, cls: string) =>
  `${keyId}|${new Date(hourMs).toISOString()}|${endpoint}|${cls}`;

function add(batch: Batch, keyId: string, hourMs: number, endpoint: string, cls: string, atMs: number, n = 1): void {
  count(batch, counterId(keyId, hourMs, endpoint, cls), keyId, atMs, n);
}

function count(batch: Batch, id: string, keyId: string, atMs: number, n = 1): void {
  batch.counts.set(id, (batch.counts.get(id) ?? 0) + n);
  const last = batch.lastUsed.get(keyId);
  if (last === undefined || last < atMs) batch.lastUsed.set(keyId, atMs);
}

function logRequest(batch: Batch, entry: LoggedRequest): void {
  let list = batch.requests.get(entry.keyId);
  if (!list) batch.requests.set(entry.keyId, (list = []));
  list.push(entry);
  if (list.length >= 2 * REQUEST_LOG_SIZE) list.splice(0, list.length - REQUEST_LOG_SIZE);
}

const MAX_PATH = 1024;
const KEY_LIKE = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]*`, "g");

/**
 * A request's path and query as the request log keeps it: at most 1 KiB, and anything shaped
 * like an API key replaced (keys belong in headers; one pasted into a query is not stored).
 */
export function logPath(pathAndQuery: string): string {
  const text = pathAndQuery.replace(KEY_LIKE, "[redacted]");
  return text.length > MAX_PATH ? `${text.slice(0, MAX_PATH - 1)}…` : text;
}

/** The usage meter of one root: counts in memory, journaled to DATA_DIR, written to the database in batches. */
export interface Meter {
  /**
   * Counts one request; never waits on the database. Once the usage journal is open (at boot) the
   * count is appended to it before this returns, and written by the `Journals.flush()` that every
   * transport runs before the response leaves (lib/plumbing/journal.ts): a killed process loses none
   * of it (the next start applies it). Database writes are batched.
   */
  record(keyId: string, endpoint: string, status: number, atMs: number, detail?: RequestDetail): void;
  /** Writes what is pending; on failure the batches (and their journal files) stay for the next attempt. */
  flush(): Promise<void>;
  /** Requests counted and not yet in the database (the usage-flush backlog of /metrics). */
  backlog(): number;
  /**
   * At start: opens this process's usage journal, and queues the journals left by dead processes
   * (a SIGKILL, a crash) for the database; returns how many requests they held.
   */
  startJournal(): Promise<number>;
}

export function createMeter(options: {
  db: () => Promise<Db>;
  dataDir: string;
  flushMs: number;
  journals: Journals;
  shutdown: Shutdown;
  onFlushFailed?: () => void;
}): Meter {
  const pending: Pending = {
    current: emptyBatch(null),
    closed: [],
    journal: null,
    timer: null,
    flushing: null,
    prunedAt: 0,
  };

  function ensureTimer(): void {
    if (pending.timer) return;
    pending.timer = setInterval(() => void flush(), options.flushMs);
    pending.timer.unref();
    options.shutdown.on(flush, 10);
  }

  /**
   * Counts one request; never waits on the database. Once the usage journal is open (at boot) the
   * count is appended to it before this returns, and written by the `Journals.flush()` that every
   * transport runs before the response leaves (lib/plumbing/journal.ts): a killed process loses none
   * of it (the next start applies it, see recoverUsage). Database writes are batched.
   */
  function record(keyId: string, endpoint: string, status: number, atMs: number, detail?: RequestDetail): void {
    const hourMs = atMs - (atMs % HOUR_MS);
    const cls = statusClass(status);
    const logged: LoggedRequest | null = detail
      ? { keyId, atMs, endpoint, status, ...detail, path: logPath(detail.path) }
      : null;
    // One JSON line: [keyId, hourMs, endpoint, class, atMs], then for the request log status, requestId, method, path, errorCode.
    const fields = logged ? [status, logged.requestId, logged.method, logged.path, logged.errorCode] : [];
    pending.journal?.append(`${JSON.stringify([keyId, hourMs, endpoint, cls, atMs, ...fields])}\n`);
    count(pending.current, counterId(keyId, hourMs, endpoint, cls), keyId, atMs);
    if (logged) logRequest(pending.current, logged);
    ensureTimer();
  }

  /** Writes what is pending; on failure the batches (and their journal files) stay for the next attempt. */
  async function flush(): Promise<void> {
    if (pending.flushing) return pending.flushing;
    const current = pending.current;
    if (current.counts.size > 0) {
      pending.current = emptyBatch(null);
      if (pending.journal) {
        current.file = pending.journal.rotate();
        pending.current.file = pending.journal.current();
      }
      pending.closed.push(current);
    }
    if (pending.closed.length === 0) return;
    pending.flushing = (async () => {
      try {
        while (pending.closed.length > 0) {
          await apply(await options.db(), pending.closed[0]!);
          pending.closed.shift();
        }
        if (Date.now() - pending.prunedAt > HOUR_MS) {
          pending.prunedAt = Date.now();
          // A file is applied and deleted in moments; its name is kept long after, for a replay.
          await (
            await options.db()
          ).$executeRawUnsafe(`DELETE FROM usage_journal_segments WHERE "appliedAt" < now() - interval '30 days'`);
        }
      } catch (error) {
        options.onFlushFailed?.();
        const counters = pending.closed.reduce((n, b) => n + b.counts.size, 0);
        console.error(
          `[metering] flush failed, ${counters} counters kept for retry: ${(error as Error).message.split("\n")[0]}`,
        );
      } finally {
        pending.flushing = null;
      }
    })();
    return pending.flushing;
  }

  /**
   * At start: opens this process's usage journal, and queues the journals left by dead processes
   * (a SIGKILL, a crash) for the database. They are written by the usual flush, so a database that
   * is down now only delays them.
   */
  async function startJournal(): Promise<number> {
    if (pending.journal) return 0;
    const dir = options.dataDir;
    const journal = await options.journals.open(dir, "usage");
    pending.journal = journal;
    if (pending.current.counts.size === 0) pending.current.file = journal.current();
    options.shutdown.on(async () => journal.close(), 20);
    const orphans = await orphanFiles(dir, "usage");
    let requests = 0;
    let files = 0;
    for (const file of orphans) {
      const batch = readUsageFile(file);
      if (batch.counts.size === 0) {
        fs.rmSync(file, { force: true });
        continue;
      }
      for (const n of batch.counts.values()) requests += n;
      files += 1;
      pending.closed.push(batch);
    }
    if (files > 0) {
      console.log(`[metering] recovering ${requests} metered request(s) from ${files} usage journal file(s)`);
      ensureTimer();
      void flush();
    }
    return requests;
  }

  const backlog = () => {
    let n = 0;
    for (const batch of [pending.current, ...pending.closed]) for (const c of batch.counts.values()) n += c;
    return n;
  };
  return { record, flush, startJournal, backlog };
}

/**
 * Request-log rows written in one transaction at most. A flush of many busy keys (each key up to
 * REQUEST_LOG_SIZE rows) is cut into slices of about this many, each written in a transaction of
 * its own with a turn of the event loop after it: the embedded database runs in the server's
 * thread, and one statement of thousands of rows would hold every request for tens of ms (a slice
 * of 500 rows takes 15-19 ms there; BENCHMARKS.md).
 */
export const LOG_SLICE_ROWS = 200;

/** The batch's request log to write (each key's last REQUEST_LOG_SIZE), in slices of whole keys, in key order. */
function logSlices(batch: Batch): LoggedRequest[][] {
  const slices: LoggedRequest[][] = [];
  let slice: LoggedRequest[] = [];
  for (const list of batch.requests.values()) {
    const kept = list.slice(-REQUEST_LOG_SIZE);
    if (slice.length > 0 && slice.length + kept.length > LOG_SLICE_ROWS) {
      slices.push(slice);
      slice = [];
    }
    slice.push(...kept);
  }
  if (slice.length > 0) slices.push(slice);
  return slices;
}

/** Adds a slice of the request log, then keeps each of its keys' last REQUEST_LOG_SIZE requests. */
async function writeLogSlice(tx: Prisma.TransactionClient, slice: readonly LoggedRequest[]): Promise<void> {
  await tx.$executeRawUnsafe(
    `INSERT INTO request_log ("keyId", at, "requestId", method, endpoint, path, status, "errorCode")
     SELECT r."keyId"::uuid, to_timestamp(r."atMs" / 1000.0), r."requestId", r.method, r.endpoint, r.path, r.status, r."errorCode"
     FROM json_to_recordset($1::json) AS r("keyId" text, "atMs" bigint, "requestId" text, method text, endpoint text, path text, status int, "errorCode" text)
     WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r."keyId"::uuid)`,
    JSON.stringify(slice),
  );
  // Bounded: each key written to keeps its last REQUEST_LOG_SIZE requests.
  await tx.$executeRawUnsafe(
    `DELETE FROM request_log WHERE id IN (
       SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY "keyId" ORDER BY at DESC, id DESC) AS n
         FROM request_log WHERE "keyId" = ANY($1::uuid[])
       ) ranked WHERE n > $2)`,
    [...new Set(slice.map((r) => r.keyId))],
    REQUEST_LOG_SIZE,
  );
}

/**
 * Writes one batch: its counts, last-use times and first slice of the request log in one
 * transaction, then each further slice of the request log in one of its own. Every transaction
 * of a journaled batch records a name in usage_journal_segments (the file's name; `#log<i>` added
 * for slice i): a transaction whose name is already there was applied (a commit whose answer was
 * lost, a file replayed after a crash between two of them) and is skipped, so no count and no
 * request is ever written twice. A batch that failed part-way and is tried again (it stays in
 * memory) starts from the slice it had not written.
 */
async function apply(prisma: Db, batch: Batch): Promise<void> {
  const rows = [...batch.counts].map(([id, n]) => {
    const [keyId, hour, endpoint, cls] = id.split("|");
    return { keyId, hour, endpoint, cls, n };
  });
  const slices = logSlices(batch);
  const segment = (slice: number) =>
    batch.file ? `${path.basename(batch.file)}${slice === 0 ? "" : `#log${slice}`}` : null;
  /** Records a transaction's segment name: false when it was applied before (nothing is then to be written). */
  const once = async (tx: Prisma.TransactionClient, name: string | null) =>
    name === null ||
    (await tx.$executeRawUnsafe(
      `INSERT INTO usage_journal_segments (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`,
      name,
    )) > 0;
  if (batch.applied === 0) {
    await prisma.$transaction(async (tx) => {
      if (!(await once(tx, segment(0)))) return;
      if (rows.length) {
        await tx.$executeRawUnsafe(
          `INSERT INTO usage_counters ("keyId", hour, endpoint, "statusClass", count)
           SELECT r."keyId"::uuid, r.hour::timestamptz, r.endpoint, r.cls, r.n
           FROM jsonb_to_recordset($1::jsonb) AS r("keyId" text, hour text, endpoint text, cls text, n int)
           WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r."keyId"::uuid)
           ON CONFLICT ("keyId", hour, endpoint, "statusClass") DO UPDATE SET count = usage_counters.count + EXCLUDED.count`,
          JSON.stringify(rows),
        );
      }
      if (slices[0]) await writeLogSlice(tx, slices[0]);
      const used = [...batch.lastUsed].map(([keyId, at]) => ({ keyId, at: new Date(at).toISOString() }));
      if (used.length) {
        await tx.$executeRawUnsafe(
          `UPDATE api_keys k SET "lastUsedAt" = GREATEST(COALESCE(k."lastUsedAt", u.at::timestamptz), u.at::timestamptz)
           FROM jsonb_to_recordset($1::jsonb) AS u("keyId" text, at text) WHERE k.id = u."keyId"::uuid`,
          JSON.stringify(used),
        );
      }
    });
    batch.applied = 1;
  }
  for (let i = batch.applied; i < slices.length; i++) {
    await yieldTurn();
    await prisma.$transaction(async (tx) => {
      if (await once(tx, segment(i))) await writeLogSlice(tx, slices[i]!);
    });
    batch.applied = i + 1;
  }
  if (batch.file) fs.rmSync(batch.file, { force: true });
}

/**
 * Writes to the database the usage journals in `dataDir`/journal of processes that are no longer
 * running (an instance that never came back, its data directory brought here), then removes them.
 * Each file's transactions are marked with its name, so a file replayed twice counts once.
 */
export async function replayUsage(
  db: () => Promise<Db>,
  dataDir: string,
): Promise<{ files: number; requests: number }> {
  let files = 0;
  let requests = 0;
  for (const file of await orphanFiles(dataDir, "usage")) {
    const batch = readUsageFile(file);
    for (const n of batch.counts.values()) requests += n;
    if (batch.counts.size === 0) fs.rmSync(file, { force: true });
    else await apply(await db(), batch);
    files += 1;
  }
  return { files, requests };
}

/** Reads a usage journal file into a batch. */
export function readUsageFile(file: string): Batch {
  const batch = emptyBatch(file);
  for (const line of readLines(file)) {
    try {
      const [keyId, hourMs, endpoint, cls, atMs, status, requestId, method, logged, errorCode] = JSON.parse(line) as [
        string,
        number,
        string,
        string,
        number,
        number?,
        string?,
        string?,
        string?,
        (string | null)?,
      ];
      if (
        typeof keyId === "string" &&
        typeof endpoint === "string" &&
        typeof cls === "string" &&
        Number.isFinite(hourMs) &&
        Number.isFinite(atMs)
      ) {
        add(batch, keyId, hourMs, endpoint, cls, atMs);
        if (
          typeof status === "number" &&
          typeof requestId === "string" &&
          typeof method === "string" &&
          typeof logged === "string"
        ) {
          logRequest(batch, {
            keyId,
            atMs,
            endpoint,
            status,
            requestId,
            method,
            path: logged,
            errorCode: errorCode ?? null,
          });
        }
      }
    } catch {
      // a line cut by a crash mid-write was never answered: nothing was charged for it
    }
  }
  return batch;
}
