import Redis from "ioredis";

/** Deletes every Redis key under `prefix` (a run's rate-limit logs, epoch and caches). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: true });
  try {
    await client.connect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(
        cursor,
        "MATCH",
        `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
        "COUNT",
        1000,
      );
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}
