import "server-only";
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Db } from "@/lib/db";
import type { KeyCache } from "@/lib/keys/api-key";
import type { Config } from "@/lib/config";
import type { Shutdown } from "@/lib/plumbing/shutdown";

const HEARTBEAT_MS = 15_000;
/** How often each server reads the newest revocation from the database (see watchRevocations). */
export const REVOCATION_WATCH_MS = 5_000;
/** An instance not seen for this long is taken to be gone; its row is then pruned. */
export const ALIVE_MS = 3 * HEARTBEAT_MS;
/** How long a revocation whose news Redis could not carry waits for every live instance to confirm it. */
export const CONFIRM_MS = 2 * REVOCATION_WATCH_MS + 2_000;

/**
 * Each server records in the database how it learns of revocations: through Redis under a prefix
 * (`redisPrefix`), or, without Redis, only from revocations made in its own process. A tool that
 * revokes directly in the database reads this to know whether every running instance will honour
 * the revocation on its next request (revocationReach).
 */
export function registerInstance({
  config: c,
  db,
  keys,
  shutdown,
  instanceId,
  database,
}: {
  config: Config;
  db: () => Promise<Db>;
  keys: KeyCache;
  shutdown: Shutdown;
  instanceId?: string;
  /** Its outage record: while the database is known down, the watch asks nothing (the outage probe does). */
  database?: { outage: { since: number | null } };
}): void {
  const id = instanceId ?? randomUUID();
  const where = { host: os.hostname(), pid: process.pid };
  const redisPrefix = c.REDIS_URL ? c.REDIS_PREFIX : null;
  const beat = async () => {
    try {
      const prisma = await db();
      await prisma.serviceInstance.upsert({
        where: { id },
        create: { id, redisPrefix, ...where },
        update: { seenAt: new Date() },
      });
      // Instances not seen for ALIVE_MS are gone (killed, their host lost): their rows go.
      await prisma.serviceInstance.deleteMany({ where: { seenAt: { lt: new Date(Date.now() - ALIVE_MS) } } });
    } catch {
      // the database is down: the next beat records this instance again
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  const watch = watchRevocations(db, keys, id, () => (database?.outage.since ?? null) !== null);
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
function watchRevocations(db: () => Promise<Db>, keys: KeyCache, id: string, down: () => boolean): NodeJS.Timeout {
  let seen: number | null = null;
  let confirmed: number | null = null;
  const look = async () => {
    if (down()) return;
    try {
      const prisma = await db();
      const newest = (await prisma.apiKey.aggregate({ _max: { revokedAt: true } }))._max.revokedAt?.getTime() ?? 0;
      if (seen !== null && newest > seen) keys.forget();
      seen = newest;
      // Confirmed once applied: a revoking tool waits for this (awaitRevocationReach).
      if (newest > 0 && newest !== confirmed) {
        await prisma.serviceInstance.updateMany({ where: { id }, data: { revocationsSeenAt: new Date(newest) } });
        confirmed = newest;
      }
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
export async function revocationReach({
  config: c,
  db,
}: {
  config: Config;
  db: () => Promise<Db>;
}): Promise<string | null> {
  const prisma = await db();
  const alive = await prisma.serviceInstance.findMany({
    where: { seenAt: { gte: new Date(Date.now() - ALIVE_MS) } },
    select: { redisPrefix: true },
  });
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

/** A running instance as `npm run instances -- list` shows it. */
export interface LiveInstance {
  id: string;
  host: string | null;
  pid: number | null;
  redisPrefix: string | null;
  startedAt: Date;
  seenAt: Date;
}

/** The instances seen within ALIVE_MS, oldest first. */
export async function liveInstances({ db }: { db: () => Promise<Db> }): Promise<LiveInstance[]> {
  return (await db()).serviceInstance.findMany({
    where: { seenAt: { gte: new Date(Date.now() - ALIVE_MS) } },
    select: { id: true, host: true, pid: true, redisPrefix: true, startedAt: true, seenAt: true },
    orderBy: { startedAt: "asc" },
  });
}

/**
 * Waits until every live instance that `needs` picks (all, by default) has applied revocations up
 * to `revokedAt` (each confirms within REVOCATION_WATCH_MS, from the database, whether or not
 * Redis carried the news), or `timeoutMs` passed. Returns the instances that have not confirmed
 * (none: the revocation holds on each of them).
 */
export async function awaitRevocationReach(
  { db }: { db: () => Promise<Db> },
  revokedAt: Date,
  timeoutMs = CONFIRM_MS,
  needs: (instance: LiveInstance) => boolean = () => true,
): Promise<LiveInstance[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const prisma = await db();
    const missing = (
      await prisma.serviceInstance.findMany({
        where: {
          seenAt: { gte: new Date(Date.now() - ALIVE_MS) },
          OR: [{ revocationsSeenAt: null }, { revocationsSeenAt: { lt: revokedAt } }],
        },
        select: { id: true, host: true, pid: true, redisPrefix: true, startedAt: true, seenAt: true },
      })
    ).filter(needs);
    if (missing.length === 0 || Date.now() >= deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How a revocation (or a rotation's retirement of the old key) stands once made. */
export type RevocationConfirmation =
  { confirmed: true; via: "redis" | "database" } | { confirmed: false; missing: LiveInstance[]; waitedMs: number };

/**
 * Waits for every live instance to hold a revocation this process has just made of `keyId`
 * (`sharedCache`: what KeyCache.invalidate answered), and says which did not: the one rule of
 * `npm run keys -- revoke` / `rotate` and of the portal's revoke and rotate, none of which reports
 * a key revoked before every live instance refuses it.
 *
 * Told through Redis, the new epoch reaches every instance on this process's Redis prefix before
 * its next request, so those need nothing more; any other live instance (no Redis, another prefix,
 * or all of them when Redis could not be told) must confirm from the database
 * (awaitRevocationReach), within `timeoutMs`. This process's own instance cleared its cache itself.
 */
export async function confirmRevocation(
  ctx: { config: Config; db: () => Promise<Db>; instanceId?: string },
  keyId: string,
  sharedCache: "told" | "deferred",
  timeoutMs = CONFIRM_MS,
): Promise<RevocationConfirmation> {
  const c = ctx.config;
  const viaRedis = sharedCache === "told" && Boolean(c.REDIS_URL);
  const needs = (i: LiveInstance) => i.id !== ctx.instanceId && !(viaRedis && i.redisPrefix === c.REDIS_PREFIX);
  const row = await (await ctx.db()).apiKey.findUnique({ where: { id: keyId }, select: { revokedAt: true } });
  if (!row?.revokedAt) return { confirmed: true, via: viaRedis ? "redis" : "database" };
  const started = Date.now();
  const missing = await awaitRevocationReach(ctx, row.revokedAt, timeoutMs, needs);
  if (missing.length === 0) return { confirmed: true, via: viaRedis ? "redis" : "database" };
  return { confirmed: false, missing, waitedMs: Date.now() - started };
}

/** An instance as a person reads it: the start of its id, its host and process. */
export const describeInstance = (i: LiveInstance): string =>
  `${i.id.slice(0, 8)} (${i.host ?? "?"} pid ${i.pid ?? "?"}, seen ${i.seenAt.toISOString()})`;
