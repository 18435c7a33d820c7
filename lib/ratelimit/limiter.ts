import { config } from "@/lib/config";
import { dataDir } from "@/lib/db/embedded";
import { createMemoryStore, createRedisStore, type MemoryStore, type RateLimitStore } from "@/lib/ratelimit/index";
import { startRateLimitJournal, type RateLimitJournal } from "@/lib/ratelimit/journal";
import { redis } from "@/lib/redis";
import { onShutdown } from "@/lib/plumbing/shutdown";

interface Holder {
  store: RateLimitStore | null;
  memory: MemoryStore | null;
  journal: RateLimitJournal | null;
}

const holder = ((globalThis as { __pmbLimiter?: Holder }).__pmbLimiter ??= { store: null, memory: null, journal: null });

/**
 * Redis when REDIS_URL is set (windows shared by every instance, kept by Redis), else this
 * process's memory, journaled to DATA_DIR once `startLimiterJournal` ran (at boot).
 */
export function limiterStore(): RateLimitStore {
  if (!holder.store) {
    const client = redis();
    if (client) {
      holder.store = createRedisStore(client, { prefix: `${config().REDIS_PREFIX}rl:` });
    } else {
      holder.memory = createMemoryStore({ onRecord: (key, at, span) => holder.journal?.record(key, at, span) });
      holder.store = holder.memory;
    }
  }
  return holder.store;
}

/** Without Redis: restores the windows a previous life of this instance left and journals them from now on. */
export async function startLimiterJournal(): Promise<void> {
  limiterStore();
  if (!holder.memory || holder.journal) return;
  holder.journal = await startRateLimitJournal(holder.memory, dataDir(), { log: (line) => console.log(line) });
  onShutdown(async () => holder.journal?.close(), 95);
}

export function keyLimits(key: { limitMinute: number | null; limitDay: number | null }) {
  const c = config();
  return { minute: key.limitMinute ?? c.FREE_LIMIT_MINUTE, day: key.limitDay ?? c.FREE_LIMIT_DAY };
}
