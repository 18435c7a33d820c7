import "server-only";
import { randomUUID } from "node:crypto";
import { config as readConfig, type Config } from "@/lib/config";
import { createDatabase, type Database, type Db } from "@/lib/db";
import { dataDir } from "@/lib/db/embedded";
import { createReadCache, type ReadCache, type ReadContext } from "@/lib/data/read-cache";
import { createKeyCache, type KeyCache } from "@/lib/keys/api-key";
import { createMeter, type Meter } from "@/lib/keys/usage-meter";
import { createMailer, type Mailer } from "@/lib/mail/send-mail";
import { createBackfillProgress, type BackfillProgress } from "@/lib/plumbing/backfill-progress";
import { systemClock, type Clock } from "@/lib/time-format";
import { createJournals, type Journals } from "@/lib/plumbing/journal";
import { createMetrics, type Metrics } from "@/lib/plumbing/metrics";
import { createShutdown, type Shutdown } from "@/lib/plumbing/shutdown";
import { createLimiter, type Limiter } from "@/lib/ratelimit/limiter";
import { createRedis, type RedisConnection } from "@/lib/redis";
import { dropHeldRoot, heldRoot, heldRootIfAny } from "@/lib/root-slot";
import { createVenues, venueEndpoints, type Venues } from "@/lib/venues/connect";

// The composition root: the collaborators of one process, built once from the configuration and
// handed to lib/api, lib/data, lib/keys and lib/ratelimit as parameters. It is the one
// process-wide reference, so Next's compiled copy of lib/ and the server's bundle share one set;
// a test builds a root of its own with `createRoot`.

export interface Root {
  config: Config;
  /** This process's id among the instances sharing the database (service_instances, the logs, the metrics). */
  instanceId: string;
  /** The Prometheus metrics of this process (/metrics). */
  metrics: Metrics;
  /** The time the request pipeline, the rate-limit windows, the metering and the caches read. */
  clock: Clock;
  /** DATA_DIR resolved: the embedded database, the journals, the operator endpoint's files. */
  dataDir: string;
  /** The database: its client, its outage record (pages answer 503 while it lasts), its health. */
  database: Database;
  /** The Prisma client (PGlite under DATA_DIR when DATABASE_URL is unset), connected on first use. */
  db: () => Promise<Db>;
  /** The read models' cache: cleared after the data changed (an engine tick, an ingest, an incident). */
  cache: ReadCache;
  /** Where the start-up catch-up of the engine is (/healthz, /status and the pages show it). */
  progress: BackfillProgress;
  /** What the read models of lib/data take. */
  read: ReadContext;
  /** Redis when REDIS_URL is set (the connection is made on first use). */
  redis: RedisConnection;
  /** The keys this process resolved, dropped on a revocation (through Redis's epoch with several instances). */
  keys: KeyCache;
  /** The address throttle and the keys' windows: in Redis with REDIS_URL, else in memory with a journal. */
  limiter: Limiter;
  /** Usage counters and the request log, journaled, written to the database in batches. */
  meter: Meter;
  /** The append-only journals (usage, rate-limit windows), flushed by every transport before an answer leaves. */
  journals: Journals;
  /** SMTP, or the local outbox. */
  mailer: Mailer;
  /** The venues' addresses and one request budget per venue, shared by the collector, the back-calculation and the gap fill. */
  venues: Venues;
  /** Work to finish on SIGTERM/SIGINT. */
  shutdown: Shutdown;
  /** The start of background work (lib/server/boot.ts), once per root. */
  booting: Promise<void> | null;
}

/** `clock`: the real one unless a test gives its own. */
export function createRoot(config: Config, parts: { clock?: Clock } = {}): Root {
  const clock = parts.clock ?? systemClock;
  const instanceId = randomUUID();
  const metrics = createMetrics({ service_instance_id: instanceId });
  const cache = createReadCache(clock);
  const progress = createBackfillProgress();
  const shutdown = createShutdown();
  const journals = createJournals();
  const redis = createRedis(config, shutdown, {
    timed: (s, ok) => metrics.redisDuration.observe({ outcome: ok ? "ok" : "error" }, s),
    failed: (kind) => metrics.redisErrors.inc({ kind }),
    outage: () => metrics.outages.inc({ dependency: "redis" }),
  });
  const database = createDatabase(config, {
    timed: (s, ok) => metrics.dbDuration.observe({ outcome: ok ? "ok" : "error" }, s),
    failed: (unavailable) => metrics.dbErrors.inc({ kind: unavailable ? "unavailable" : "other" }),
    outage: () => metrics.outages.inc({ dependency: "database" }),
  });
  const db = database.client;
  const dir = dataDir(config);
  const meter = createMeter({
    bulkWrite: database.bulkWrite,
    dataDir: dir,
    flushMs: config.METERING_FLUSH_MS,
    logDays: config.REQUEST_LOG_DAYS,
    journals,
    shutdown,
    onFlushFailed: () => metrics.usageFlushFailures.inc(),
  });
  metrics.gauge(
    "pmb_usage_flush_backlog_requests",
    "Metered requests counted (and journaled) but not yet written to the database.",
    () => meter.backlog(),
  );
  metrics.gauge(
    "pmb_backfill_hours_done",
    "Hours the engine's start-up catch-up (back-calculation) has computed.",
    () => progress.hoursDone,
  );
  metrics.gauge(
    "pmb_backfill_hours_planned",
    "Hours the engine's start-up catch-up has to compute in all, those done included (unknown: absent).",
    () => progress.hoursTotal,
  );
  metrics.gauge("pmb_backfill_running", "1 while the engine's start-up catch-up runs.", () =>
    progress.state === "running" ? 1 : 0,
  );
  return {
    config,
    instanceId,
    metrics,
    clock,
    dataDir: dir,
    database,
    db,
    cache,
    progress,
    read: { db, cache, progress },
    redis,
    keys: createKeyCache({
      db,
      epoch: config.REDIS_URL
        ? { ready: redis.ready, epochKey: redis.key("keys:epoch"), onReconnect: redis.onReconnect }
        : null,
      clock,
      lookups: metrics.keyCache,
    }),
    limiter: createLimiter({ redis: redis.client, prefix: config.REDIS_PREFIX, limits: config, journals, shutdown }),
    meter,
    journals,
    mailer: createMailer(),
    venues: createVenues(venueEndpoints(config), (venue, url, status, endpoint) =>
      metrics.venueRequests.inc({
        venue,
        endpoint: endpoint ?? venueEndpoint(url),
        outcome: status >= 200 && status < 300 ? "ok" : "error",
      }),
    ),
    shutdown,
    booting: null,
  };
}

/**
 * A venue URL's path as a bounded label, for a request that names no documented endpoint (those
 * are labelled by their name, e.g. "gamma GET /events/keyset"): its lower-case words kept,
 * identifiers and tickers as {id}.
 */
export function venueEndpoint(url: string): string {
  try {
    return (
      new URL(url).pathname
        .split("/")
        .map((s) => (s === "" || /^[a-z][a-z_-]*$/.test(s) ? s : "{id}"))
        .join("/") || "/"
    );
  } catch {
    return "?";
  }
}

/** This process's root, built on first use from the configuration (held in lib/root-slot.ts). */
export function root(): Root {
  return heldRoot(() => createRoot(readConfig()));
}

/**
 * Closes this process's root, if one was built: its shutdown work (journals, Redis), then the
 * database. The next `root()` builds another from the configuration. For tools and tests, which
 * end or change databases; a server closes its root through its shutdown (lib/server/boot.ts).
 */
export async function closeRoot(): Promise<void> {
  const held = heldRootIfAny() as Root | undefined;
  if (!held) return;
  dropHeldRoot(held);
  await held.shutdown.run();
  await held.database.close();
}
