import { config } from "@/lib/config";
import { createMemoryStore, createRedisStore, type RateLimitStore } from "@/lib/ratelimit";
import { redis } from "@/lib/redis";

const holder = ((globalThis as { __pmbLimiter?: { store: RateLimitStore | null } }).__pmbLimiter ??= { store: null });

/** Redis when REDIS_URL is set (windows shared by every instance), else this process's memory. */
export function limiterStore(): RateLimitStore {
  if (!holder.store) {
    const client = redis();
    holder.store = client ? createRedisStore(client, { prefix: `${config().REDIS_PREFIX}rl:` }) : createMemoryStore();
  }
  return holder.store;
}

export function keyLimits(key: { limitMinute: number | null; limitDay: number | null }) {
  const c = config();
  return { minute: key.limitMinute ?? c.FREE_LIMIT_MINUTE, day: key.limitDay ?? c.FREE_LIMIT_DAY };
}
