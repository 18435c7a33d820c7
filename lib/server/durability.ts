import { registerInstance } from "@/lib/keys/instances";
import type { Root } from "@/lib/root";

/**
 * At boot, before the first request: the rate-limit windows (without Redis) and the usage of a
 * previous life of this instance are recovered from DATA_DIR/journal and journaling starts; the
 * instance records how it learns of revocations; Redis starts connecting.
 */
export async function startDurability(root: Root): Promise<void> {
  await root.limiter.startJournal(root.dataDir);
  await root.meter.startJournal();
  registerInstance(root);
  if (root.redis.client())
    await root.redis
      .ready()
      .catch(() => console.error("[redis] not reachable at start: keyed requests answer 503 unavailable until it is"));
}
