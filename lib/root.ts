import "server-only";
import { config as readConfig, type Config } from "@/lib/config";
import { db, type Db } from "@/lib/db";
import { dataDir } from "@/lib/db/embedded";
import { createReadCache, type ReadCache, type ReadContext } from "@/lib/data/read-cache";
import { createKeyCache, type KeyCache } from "@/lib/keys/key-cache";
import { createMeter, type Meter } from "@/lib/keys/usage-meter";
import { createLimiter, type Limiter } from "@/lib/ratelimit/limiter";
import { onRedisReconnect, readyRedis, redis } from "@/lib/redis";

// The composition root: the collaborators of one process, built once from the configuration and
// handed to lib/api, lib/data, lib/keys and lib/ratelimit as parameters. It is the one
// process-wide reference, so Next's compiled copy of lib/ and the server's bundle share one set;
// a test builds a root of its own with `createRoot`.

export interface Root {
  config: Config;
  /** The Prisma client (PGlite under DATA_DIR when DATABASE_URL is unset). */
  db: () => Promise<Db>;
  /** The read models' cache: cleared after the data changed (an engine tick, an ingest, an incident). */
  cache: ReadCache;
  /** What the read models of lib/data take. */
  read: ReadContext;
  /** The keys this process resolved, dropped on a revocation (through Redis's epoch with several instances). */
  keys: KeyCache;
  /** The address throttle and the keys' windows: in Redis with REDIS_URL, else in memory with a journal. */
  limiter: Limiter;
  /** Usage counters and the request log, journaled, written to the database in batches. */
  meter: Meter;
}

export function createRoot(config: Config): Root {
  const cache = createReadCache();
  return {
    config,
    db,
    cache,
    read: { db, cache },
    keys: createKeyCache({ redis, ready: readyRedis, epochKey: `${config.REDIS_PREFIX}keys:epoch`, onReconnect: onRedisReconnect }),
    limiter: createLimiter({ redis, prefix: config.REDIS_PREFIX }),
    meter: createMeter({ db, dataDir: dataDir(), flushMs: config.METERING_FLUSH_MS }),
  };
}

const slot = globalThis as { __pmbRoot?: Root };

/** This process's root, built on first use from the configuration. */
export function root(): Root {
  return (slot.__pmbRoot ??= createRoot(readConfig()));
}
