import type Redis from "ioredis";
import {
  createMemoryStore,
  createRedisStore,
  throttle,
  type LimitDecision,
  type MemoryStore,
  type RateLimitStore,
  type ThrottleDecision,
} from "@/lib/ratelimit/index";
import { startRateLimitJournal, type RateLimitJournal } from "@/lib/ratelimit/memory-store";
import type { Journals } from "@/lib/plumbing/journal";
import type { Shutdown } from "@/lib/plumbing/shutdown";

/** The rate-limit windows of one root: the address throttle and the keys' minute and day windows. */
export interface Limiter {
  /**
   * Redis when a Redis connection is given (windows shared by every instance, kept by Redis), else
   * this process's memory, journaled to DATA_DIR once `startJournal` ran (at boot).
   */
  store(): RateLimitStore;
  /** Spends one request from an address's minute window (the pre-authentication throttle). */
  throttle(address: string, nowMs: number): Promise<ThrottleDecision>;
  /** Spends one request from both of a key's windows (its own limits, else the free plan's). */
  spend(
    key: { id: string; limitMinute: number | null; limitDay: number | null },
    nowMs: number,
  ): Promise<LimitDecision>;
  /** Without Redis: restores the windows a previous life of this instance left and journals them from now on. */
  startJournal(dataDir: string): Promise<void>;
}

/** `redis`: the connection (made on first use), or null for one instance; `limits`: the address's and the free plan's. */
export function createLimiter(options: {
  redis: () => Redis | null;
  prefix: string;
  limits: { IP_LIMIT_MINUTE: number; FREE_LIMIT_MINUTE: number; FREE_LIMIT_DAY: number };
  journals: Journals;
  shutdown: Shutdown;
}): Limiter {
  let store: RateLimitStore | null = null;
  let memory: MemoryStore | null = null;
  let journal: RateLimitJournal | null = null;
  const limiter: Limiter = {
    store() {
      if (!store) {
        const client = options.redis();
        if (client) {
          store = createRedisStore(client, { prefix: `${options.prefix}rl:` });
        } else {
          memory = createMemoryStore({ onRecord: (key, at, span) => journal?.record(key, at, span) });
          store = memory;
        }
      }
      return store;
    },
    throttle: (address, nowMs) => throttle(limiter.store(), address, nowMs, { limit: options.limits.IP_LIMIT_MINUTE }),
    spend: (key, nowMs) => limiter.store().consume(key.id, keyLimits(key, options.limits), nowMs),
    async startJournal(dataDir) {
      limiter.store();
      if (!memory || journal) return;
      journal = await startRateLimitJournal(memory, dataDir, {
        journals: options.journals,
        log: (line) => console.log(line),
      });
      options.shutdown.on(async () => journal?.close(), 95);
    },
  };
  return limiter;
}

/** A key's limits: its own, else the free plan's. */
export function keyLimits(
  key: { limitMinute: number | null; limitDay: number | null },
  free: { FREE_LIMIT_MINUTE: number; FREE_LIMIT_DAY: number },
) {
  return { minute: key.limitMinute ?? free.FREE_LIMIT_MINUTE, day: key.limitDay ?? free.FREE_LIMIT_DAY };
}
