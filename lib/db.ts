import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import type { Config } from "@/lib/config";
import { dataDir, openEmbedded } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";
import { NameAsTextPool, type QueryBounds } from "@/lib/db/pg-pool";
import type { OutageRecord } from "@/lib/db/outage";
import { isUnavailableError, unavailableDependency } from "@/lib/db/unavailable";

export { isUnavailableError, unavailableDependency } from "@/lib/db/unavailable";

export type Db = PrismaClient;

/** A statement on the driver beneath Prisma: its text with $1, $2 ... and its parameters; resolves to the rows it changed. */
export type Sql = (text: string, ...params: unknown[]) => Promise<number>;

/** Runs `work` in one transaction on the driver beneath Prisma (Database.bulkWrite). */
export type BulkWrite = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

/** The service's database: the Prisma client, its outage record, its health; one per root (lib/root.ts). */
export interface Database {
  /** The Prisma client, connected on first use (PGlite under DATA_DIR when DATABASE_URL is unset). */
  client(): Promise<Db>;
  /**
   * Runs `work` in one transaction on the driver beneath Prisma (the pg pool, or PGlite), for the
   * writes whose parameters grow with traffic (the usage flush's counters and request log): Prisma
   * 6's query compiler runs on the server's thread and reads every parameter, about 80 ms of CPU for
   * a megabyte of JSON against 3 ms on the driver, and answers waited behind it.
   */
  bulkWrite: BulkWrite;
  /** Disconnects (and releases the embedded directory); the next `client()` connects again. */
  close(): Promise<void>;
  /**
   * Runs `work` as a background job (the engine's catch-up and ticks, the collector, bundle builds,
   * operator tools): its queries may take up to DB_JOB_TIMEOUT_MS (they wait for the engine lock,
   * write a backfill) instead of the request bound DB_QUERY_TIMEOUT_MS.
   */
  asJob<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the database is known to be unavailable now (proxy.ts reads it through lib/root-slot.ts). */
  outage: OutageRecord;
  /**
   * The database cannot serve now: one log line when an outage starts (the reason, no stack), a
   * line a minute while it lasts (how many failures), one when it ends (`noteAnswered`). While it
   * lasts a probe asks the database every PROBE_MS whether it is back, and pages answer 503.
   */
  noteUnavailable(error: unknown): void;
  /** The database answered: ends an outage (one log line) if one was under way. */
  noteAnswered(): void;
  /** Reachability and server version, for /healthz. Never throws. */
  health(): Promise<{ ok: true; version: string; latencyMs: number } | { ok: false; error: string }>;
  /** One line about a database failure, naming the database and the reason, never a stack. */
  describe(error: unknown): string;
}

const STILL_DOWN_LINE_MS = 60_000;
/** While the database is down, how often a probe checks whether it is back (so recovery needs no request). */
const PROBE_MS = 500;

/** What the database reports to the metrics (lib/plumbing/metrics.ts): query round trips, failures, outages begun. */
export interface DatabaseObserver {
  timed(seconds: number, ok: boolean): void;
  failed(unavailable: boolean): void;
  outage(): void;
}

/**
 * The database's outage record: the first failure opens it (one log line, a probe every
 * PROBE_MS), a line every STILL_DOWN_LINE_MS while it lasts, the first answer closes it.
 */
function watchOutages(
  describe: (error: unknown) => string,
  probeOnce: () => Promise<unknown>,
  observer?: DatabaseObserver,
) {
  const outage: OutageRecord = { since: null, failures: 0, lastLine: 0 };
  let probe: NodeJS.Timeout | null = null;
  const noteAnswered = () => {
    if (probe) clearInterval(probe);
    probe = null;
    if (outage.since === null) return;
    console.error(
      `[db] answering again after ${((Date.now() - outage.since) / 1000).toFixed(1)} s (${outage.failures} failed operations)`,
    );
    outage.since = null;
    outage.failures = 0;
  };

  const noteUnavailable = (error: unknown) => {
    const now = Date.now();
    outage.failures++;
    if (outage.since === null) {
      outage.since = now;
      outage.lastLine = now;
      outage.failures = 1;
      observer?.outage();
      console.error(`[db] unavailable: ${describe(error)}; requests that need it get 503 until it answers again`);
      probe ??= setInterval(() => {
        void probeOnce().then(noteAnswered, () => undefined);
      }, PROBE_MS);
      probe.unref();
    } else if (now - outage.lastLine >= STILL_DOWN_LINE_MS) {
      outage.lastLine = now;
      console.error(
        `[db] still unavailable after ${Math.round((now - outage.since) / 1000)} s (${outage.failures} failed operations): ${describe(error)}`,
      );
    }
  };
  const stop = () => {
    if (probe) clearInterval(probe);
    probe = null;
  };
  return { outage, noteAnswered, noteUnavailable, stop };
}

/** An open database: its Prisma client, its bulk writes on the driver beneath, and how to close it. */
interface Connection {
  client: PrismaClient;
  bulkWrite: BulkWrite;
  close: () => Promise<void>;
}

/** A Prisma client over PostgreSQL (every acquisition and query bounded) or the embedded PGlite, and how to close it. */
async function connect(c: Config, bounds: QueryBounds): Promise<Connection> {
  if (c.DATABASE_URL) {
    // Every acquisition and every query is bounded (DB_QUERY_TIMEOUT_MS; a background job's query
    // by DB_JOB_TIMEOUT_MS): a database that stops answering (a partition) costs a request at most
    // the bound, then 503 `unavailable`; a connection whose query timed out is discarded.
    const pool = new NameAsTextPool(
      {
        connectionString: c.DATABASE_URL,
        max: 10,
        connectionTimeoutMillis: c.DB_QUERY_TIMEOUT_MS,
        query_timeout: c.DB_QUERY_TIMEOUT_MS,
      },
      bounds,
    );
    pool.on("error", () => {
      // an idle client lost its server; the next query reconnects or reports `unavailable`
    });
    const client = new PrismaClient({ adapter: new PrismaPg(pool), errorFormat: "minimal" });
    const close = async () => {
      await client.$disconnect();
      await pool.end().catch(() => undefined);
    };
    return { client, bulkWrite: (work) => poolTransaction(pool, work), close };
  }
  // Embedded: this process owns the PGlite directory and migrates it before first use.
  const { pglite, release } = await openEmbedded(dataDir(c));
  await applyMigrations(pglite);
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const client = new PrismaClient({ adapter: new PrismaPGlite(pglite), errorFormat: "minimal" });
  const close = async () => {
    await client.$disconnect();
    await release();
  };
  const bulkWrite: BulkWrite = (work) =>
    pglite.transaction((tx) => work(async (text, ...params) => (await tx.query(text, params)).affectedRows ?? 0));
  return { client, bulkWrite, close };
}

/** `work` in one transaction on a connection of the pool; a connection whose rollback failed is discarded. */
async function poolTransaction<T>(pool: NameAsTextPool, work: (sql: Sql) => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  let broken: Error | undefined;
  try {
    await connection.query("BEGIN");
    const out = await work(async (text, ...params) => (await connection.query(text, params)).rowCount ?? 0);
    await connection.query("COMMIT");
    return out;
  } catch (error) {
    await connection.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
    throw error;
  } finally {
    connection.release(broken);
  }
}

export function createDatabase(c: Config, observer?: DatabaseObserver): Database {
  let connection: Promise<Connection> | null = null;
  const jobs = new AsyncLocalStorage<true>();
  const describe = (error: unknown) => describeDbError(c, error);
  const { outage, noteAnswered, noteUnavailable, stop } = watchOutages(
    describe,
    () => client().then((p) => p.$queryRawUnsafe("SELECT 1")),
    observer,
  );
  const bounds = queryBounds(
    () => (jobs.getStore() ? c.DB_JOB_TIMEOUT_MS : null),
    noteAnswered,
    noteUnavailable,
    observer,
  );

  /** The connection (client, bulk writes, close), made on first use; a failed one is tried again at the next. */
  function connected(): Promise<Connection> {
    connection ??= connect(c, bounds).catch((error: unknown) => {
      connection = null;
      throw error;
    });
    return connection;
  }
  const client = async () => (await connected()).client;

  return {
    client,
    bulkWrite: async (work) => (await connected()).bulkWrite(work),
    async close() {
      stop();
      // a connection under way finishes first, so its client is closed too
      const open = await connection?.catch(() => null);
      connection = null;
      if (open) await open.close();
    },
    asJob: (work) => jobs.run(true, work),
    outage,
    noteUnavailable,
    noteAnswered,
    async health() {
      const started = performance.now();
      try {
        const p = await client();
        const rows = await p.$queryRawUnsafe<Array<{ version: string }>>(
          "SELECT current_setting('server_version') AS version",
        );
        noteAnswered();
        return { ok: true, version: rows[0]?.version ?? "unknown", latencyMs: Math.round(performance.now() - started) };
      } catch (error) {
        if (isUnavailableError(error)) noteUnavailable(error);
        return { ok: false, error: describe(error) };
      }
    },
    describe,
  };
}

/** What the pool reports of each query: the bound of a job's, the outcome (outages), the round trip (metrics). */
function queryBounds(
  override: () => number | null,
  answered: () => void,
  unavailable: (error: unknown) => void,
  observer?: DatabaseObserver,
): QueryBounds {
  return {
    override,
    answered,
    failed: (error) => {
      const down = unavailableDependency(error) === "database";
      observer?.failed(down);
      if (down) unavailable(error);
    },
    timed: observer?.timed,
  };
}

/** One line about a database failure, naming the database and the reason, never a stack. */
function describeDbError(c: Config, error: unknown): string {
  const where = c.DATABASE_URL ? safeHost(c.DATABASE_URL) : `embedded database in ${c.DATA_DIR}`;
  return `${where}: ${dbErrorReason(c, error)}`;
}

/** The reason of a database failure in a few words: the driver's SQLSTATE or socket code and the first line of its message. */
function dbErrorReason(c: Config, error: unknown): string {
  let code = "";
  let message = "";
  // Prisma wraps the driver's error (in `cause`, or in `meta.driverAdapterError` for raw queries):
  // the innermost code and message are the driver's own.
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 12; seen++) {
    const e = queue.shift() as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      originalMessage?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    } | null;
    if (!e || typeof e !== "object") continue;
    const own = typeof e.originalCode === "string" ? e.originalCode : typeof e.code === "string" ? e.code : "";
    if (own && !/^P\d{4}$/.test(own)) code = own;
    const text =
      typeof e.originalMessage === "string" ? e.originalMessage : typeof e.message === "string" ? e.message : "";
    if (text.trim() && !/^\s*Invalid `/.test(text)) message = text.trim();
    queue.push(e.cause, e.meta?.driverAdapterError);
  }
  message = (message || String((error as { message?: unknown })?.message ?? error).trim())
    .split("\n")[0]!
    .slice(0, 200);
  if (/Query read timeout/.test(message)) return `no answer within ${c.DB_QUERY_TIMEOUT_MS} ms (DB_QUERY_TIMEOUT_MS)`;
  if (/timeout exceeded when trying to connect|due to connection timeout/.test(message))
    return `no connection within ${c.DB_QUERY_TIMEOUT_MS} ms (DB_QUERY_TIMEOUT_MS)`;
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

export function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || "5432"}`;
  } catch {
    return "PostgreSQL (unparseable DATABASE_URL)";
  }
}
