import Redis from "ioredis";
import { config } from "@/lib/config";
import { onShutdown } from "@/lib/server/shutdown";

const holder = ((globalThis as { __pmbRedis?: { client: Redis | null } }).__pmbRedis ??= { client: null });

/** The process's Redis connection, or null when REDIS_URL is unset (one-instance mode). */
export function redis(): Redis | null {
  const url = config().REDIS_URL;
  if (!url) return null;
  if (!holder.client) {
    const client = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000, lazyConnect: false, enableAutoPipelining: true });
    client.on("error", (error) => console.error(`[redis] ${error.message}`));
    holder.client = client;
    onShutdown(async () => {
      await client.quit().catch(() => undefined);
      holder.client = null;
    }, 90);
  }
  return holder.client;
}

export function redisKey(name: string): string {
  return `${config().REDIS_PREFIX}${name}`;
}
