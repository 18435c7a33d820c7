import "server-only";
import fs from "node:fs";
import type { BulkWrite } from "@/lib/db";
import { KEY_PREFIX } from "@/lib/keys/api-key";
import {
  applyBatch,
  count,
  counterId,
  emptyBatch,
  logRequest,
  pruneUsage,
  readUsageFile,
  requestsIn,
  type Batch,
  type LoggedRequest,
  type RequestDetail,
} from "@/lib/keys/usage-batch";
import { orphanFiles, type Journal, type Journals } from "@/lib/plumbing/journal";
import type { Shutdown } from "@/lib/plumbing/shutdown";

// The usage meter of one root: each request counted in memory and appended to this process's
// usage journal before its answer leaves ("charged before answered": a SIGKILL loses none of it,
// the next start applies the journal), then written to the database in batches
// (lib/keys/usage-batch.ts) every METERING_FLUSH_MS.

export { REQUEST_LOG_SIZE, replayUsage, readUsageFile, type RequestDetail } from "@/lib/keys/usage-batch";

export type StatusClass = "2xx" | "4xx" | "429" | "5xx";

export function statusClass(status: number): StatusClass {
  if (status === 429) return "429";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "2xx";
}

const HOUR_MS = 3_600_000;
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
   * of it (the next start applies it).
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

export interface MeterOptions {
  /** Every write of the meter: batches and prunes (Database.bulkWrite). */
  bulkWrite: BulkWrite;
  dataDir: string;
  flushMs: number;
  /** Days the request log keeps a request (REQUEST_LOG_DAYS). */
  logDays?: number;
  journals: Journals;
  shutdown: Shutdown;
  onFlushFailed?: () => void;
}

/** What a meter holds between flushes. */
interface Pending {
  current: Batch;
  /** Closed batches not yet in the database (a failed flush keeps them for the next). */
  closed: Batch[];
  journal: Journal | null;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
  prunedAt: number;
}

export function createMeter(options: MeterOptions): Meter {
  const pending: Pending = {
    current: emptyBatch(null),
    closed: [],
    journal: null,
    timer: null,
    flushing: null,
    prunedAt: 0,
  };
  const flush = () => flushPending(pending, options);
  const ensureTimer = () => {
    if (pending.timer) return;
    pending.timer = setInterval(() => void flush(), options.flushMs);
    pending.timer.unref();
    options.shutdown.on(flush, 10);
  };
  return {
    record(keyId, endpoint, status, atMs, detail) {
      recordRequest(pending, keyId, endpoint, status, atMs, detail);
      ensureTimer();
    },
    flush,
    async startJournal() {
      const recovered = await openJournal(pending, options);
      if (recovered > 0) {
        ensureTimer();
        void flush();
      }
      return recovered;
    },
    backlog: () => [pending.current, ...pending.closed].reduce((n, batch) => n + requestsIn(batch), 0),
  };
}

/** One request into the current batch, and one JSON line into the journal: [keyId, hourMs, endpoint, class, atMs, status, requestId, method, path, errorCode]. */
function recordRequest(
  pending: Pending,
  keyId: string,
  endpoint: string,
  status: number,
  atMs: number,
  detail?: RequestDetail,
): void {
  const hourMs = atMs - (atMs % HOUR_MS);
  const cls = statusClass(status);
  const logged: LoggedRequest | null = detail
    ? { keyId, atMs, endpoint, status, ...detail, path: logPath(detail.path) }
    : null;
  const fields = logged ? [status, logged.requestId, logged.method, logged.path, logged.errorCode] : [];
  pending.journal?.append(`${JSON.stringify([keyId, hourMs, endpoint, cls, atMs, ...fields])}\n`);
  count(pending.current, counterId(keyId, hourMs, endpoint, cls), keyId, atMs);
  if (logged) logRequest(pending.current, logged);
}

/** Closes the current batch (its journal file rotated) and writes every closed batch, oldest first; prunes hourly. */
function flushPending(pending: Pending, options: MeterOptions): Promise<void> {
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
  if (pending.closed.length === 0) return Promise.resolve();
  pending.flushing = (async () => {
    try {
      while (pending.closed.length > 0) {
        await applyBatch(options.bulkWrite, pending.closed[0]!);
        pending.closed.shift();
      }
      if (Date.now() - pending.prunedAt > HOUR_MS) {
        pending.prunedAt = Date.now();
        await pruneUsage(options.bulkWrite, options.logDays ?? 30);
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
 * Opens this process's usage journal and queues the journals left by dead processes for the
 * database (written by the usual flush, so a database that is down now only delays them);
 * returns how many requests they held.
 */
async function openJournal(pending: Pending, options: MeterOptions): Promise<number> {
  if (pending.journal) return 0;
  const journal = await options.journals.open(options.dataDir, "usage");
  pending.journal = journal;
  if (pending.current.counts.size === 0) pending.current.file = journal.current();
  options.shutdown.on(async () => journal.close(), 20);
  let requests = 0;
  let files = 0;
  for (const file of await orphanFiles(options.dataDir, "usage")) {
    const batch = readUsageFile(file);
    if (batch.counts.size === 0) {
      fs.rmSync(file, { force: true });
      continue;
    }
    requests += requestsIn(batch);
    files += 1;
    pending.closed.push(batch);
  }
  if (files > 0)
    console.log(`[metering] recovering ${requests} metered request(s) from ${files} usage journal file(s)`);
  return requests;
}
