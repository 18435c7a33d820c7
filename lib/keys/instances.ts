import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db";
import type { KeyCache } from "@/lib/keys/key-cache";
import type { Config } from "@/lib/config";
import type { Shutdown } from "@/lib/plumbing/shutdown";

const HEARTBEAT_MS = 60_000;
/** How often each server reads the newest revocation from the database (see watchRevocations). */
export const REVOCATION_WATCH_MS = 5_000;
/** An instance not seen for this long is taken to be gone. */
const ALIVE_MS = 3 * HEARTBEAT_MS;

/**
 * Each server records in the database how it learns of revocations: through Redis under a prefix
 * (`redisPrefix`), or, without Redis, only from revocations made in its own process. A tool that
 * revokes directly in the database reads this to know whether every running instance will honour
 * the revocation on its next request (revocationReach).
 */
export function registerInstance({ config: c, db, keys, shutdown }: { config: Config; db: () => Promise<Db>; keys: KeyCache; shutdown: Shutdown }): void {
  const id = randomUUID();
  const redisPrefix = c.REDIS_URL ? c.REDIS_PREFIX : null;
  const beat = async () => {
    try {
      const prisma = await db();
      await prisma.serviceInstance.upsert({ where: { id }, create: { id, redisPrefix }, update: { seenAt: new Date() } });
      await prisma.serviceInstance.deleteMany({ where: { seenAt: { lt: new Date(Date.now() - 10 * ALIVE_MS) } } });
    } catch {
      // the database is down: the next beat records this instance again
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  const watch = watchRevocations(db, keys);
  shutdown.on(async () => {
    clearInterval(timer);
    clearInterval(watch);
    await (await db()).serviceInstance.deleteMany({ where: { id } }).catch(() => undefined);
  }, 50);
}

/**
 * The database's word on revocations, beside Redis's: every REVOCATION_WATCH_MS this server
 * reads the newest revocation or rotation time and drops its cached keys when it moved. A
 * revocation whose news Redis could not carry (Redis down for the tool that revoked, while this
 * server's connection is fine) thus holds here within seconds, not at the end of the cache entry's
 * five minutes. One small query per interval; a failure (the database down) waits for the next.
 */
function watchRevocations(db: () => Promise<Db>, keys: KeyCache): NodeJS.Timeout {
  let seen: number | null = null;
  const look = async () => {
    try {
      const newest = (await (await db()).apiKey.aggregate({ _max: { revokedAt: true } }))._max.revokedAt?.getTime() ?? 0;
      if (seen !== null && newest > seen) keys.forget();
      seen = newest;
    } catch {
      // the database is down: the next look
    }
  };
  void look();
  const timer = setInterval(() => void look(), REVOCATION_WATCH_MS);
  timer.unref();
  return timer;
}

/**
 * Null when a revocation made by this process reaches every running instance; otherwise why not.
 * Called by the operator CLI before it revokes or rotates a key directly in the database.
 */
export async function revocationReach({ config: c, db }: { config: Config; db: () => Promise<Db> }): Promise<string | null> {
  const prisma = await db();
  const alive = await prisma.serviceInstance.findMany({ where: { seenAt: { gte: new Date(Date.now() - ALIVE_MS) } }, select: { redisPrefix: true } });
  const local = alive.filter((i) => i.redisPrefix === null).length;
  if (local > 0) {
    return `${local} running server instance(s) of this database use no Redis: each keeps its own key cache (up to 5 minutes), which this tool cannot reach. Revoke the key in that server's portal, or stop the server first.`;
  }
  const prefixes = [...new Set(alive.map((i) => i.redisPrefix as string))];
  if (prefixes.length === 0) return null;
  if (!c.REDIS_URL) {
    return `running server instances of this database use Redis (prefix ${prefixes.join(", ")}) to learn of revocations, and this tool has no REDIS_URL: set REDIS_URL (and REDIS_PREFIX) as the servers have them, so the revocation holds on their next request.`;
  }
  const other = prefixes.filter((p) => p !== c.REDIS_PREFIX);
  if (other.length > 0) {
    return `running server instances use the Redis prefix ${other.join(", ")}, this tool ${c.REDIS_PREFIX}: set REDIS_PREFIX as the servers have it, so the revocation reaches them.`;
  }
  return null;
}
