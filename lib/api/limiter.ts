import { config } from "@/lib/config";
import { dataDir } from "@/lib/db/embedded";
import { createMemoryStore, createRedisStore, type MemoryStore, type RateLimitStore } from "@/lib/ratelimit";
import { startRateLimitJournal, type RateLimitJournal } from "@/lib/ratelimit/journal";
import { redis } from "@/lib/redis";
import { callParent, hasParent } from "@/lib/server/ipc";
import { onShutdown } from "@/lib/server/shutdown";

interface Holder {
  store: RateLimitStore | null;
  memory: MemoryStore | null;
  journal: RateLimitJournal | null;
}

const holder = ((globalThis as { __pmbLimiter?: Holder }).__pmbLimiter ??= { store: null, memory: null, journal: null });

/**
 * Redis when REDIS_URL is set (windows shared by every instance, kept by Redis), else this
 * process's memory, journaled to DATA_DIR once `startLimiterJournal` ran (at boot). In the Next
 * process of an API process (lib/server/api-process.ts) without Redis, the API
 * process's memory: MCP, the portal and sign-in spend from the very windows /v1 spends from.
 */
export function limiterStore(): RateLimitStore {
  if (!holder.store) {
    const client = redis();
    if (client) {
      holder.store = createRedisStore(client, { prefix: `${config().REDIS_PREFIX}rl:` });
    } else if (hasParent()) {
      holder.store = parentStore();
    } else {
      holder.memory = createMemoryStore({ onRecord: (key, at, span) => holder.journal?.record(key, at, span) });
      holder.store = holder.memory;
    }
  }
  return holder.store;
}

/** The rate-limit store operations the API process answers for its Next process (lib/server/ipc.ts). */
export const LIMITER_OPS = ["hit", "hitThen", "look", "consume", "peek"] as const;

/** The API process's in-process store, called over IPC: each operation one call, decided there. */
function parentStore(): RateLimitStore {
  const call =
    <T>(op: (typeof LIMITER_OPS)[number]) =>
    (...args: unknown[]) =>
      callParent<T>(`limiter.${op}`, args);
  return { hit: call("hit"), hitThen: call("hitThen"), look: call("look"), consume: call("consume"), peek: call("peek") };
}

/** In the API process: the handlers its Next process calls for `parentStore`. */
export function limiterHandlers(): Record<string, (...args: never[]) => unknown> {
  const store = limiterStore();
  return Object.fromEntries(LIMITER_OPS.map((op) => [`limiter.${op}`, (...args: never[]) => (store[op] as (...a: never[]) => unknown)(...args)]));
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
