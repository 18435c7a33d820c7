import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { confirmRevocation, CONFIRM_MS } from "@/lib/keys/instances";
import { ensureUser, mintKey, revokeKey } from "@/lib/keys/manage-keys";
import { revocationAnswer } from "@/lib/portal/keys";
import { createRoot, type Root } from "@/lib/root";
import { ownDatabase, sql } from "../faults/support";
import { uniqueName } from "../support/pg";
import { deleteRedisPrefix } from "../support/redis";

// Rule (lib/keys/instances.ts, confirmRevocation): a revocation is reported done only once every
// live instance holds it, the rule of `npm run keys -- revoke` and of the portal's revoke and
// rotate. Told through Redis, the instances on the revoking process's prefix hold it on their next
// request (the epoch); every other live instance must confirm from the database. Live instances
// are rows of service_instances seen now, as running servers keep them; one that never confirms
// is a row whose revocation watch never records the revocation.

const PREFIX = `${uniqueName("it_revoke_confirm")}:`;
const SHORT_MS = 1_500;
let database: Awaited<ReturnType<typeof ownDatabase>>;
let r: Root;

beforeAll(async () => {
  database = await ownDatabase("revoke_confirm");
  r = createRoot(
    parseConfig({ ...process.env, DATABASE_URL: database.url, REDIS_URL: inject("redisUrl"), REDIS_PREFIX: PREFIX }),
  );
}, 120_000);

afterAll(async () => {
  await r?.shutdown.run();
  await r?.database.close();
  await deleteRedisPrefix(inject("redisUrl"), PREFIX);
  await database?.drop();
});

async function revokedKey(sharedCacheWanted?: "deferred") {
  const db = await r.db();
  const userId = await ensureUser(db, `${uniqueName("u")}@example.com`);
  const { summary } = await mintKey(db, userId, { name: "confirm", limitMinute: null, limitDay: null });
  const row = await revokeKey(db, r.keys, summary.id, null);
  return { id: summary.id, sharedCache: sharedCacheWanted ?? row.sharedCache };
}

/** A live instance (seen now) that never confirms a revocation: its database watch is stuck. */
async function stuckInstance(id: string, redisPrefix: string | null): Promise<() => Promise<unknown>> {
  await sql(
    database.url,
    `INSERT INTO service_instances (id, "redisPrefix", host, pid, "seenAt") VALUES ($1, $2, 'stuck-host', 4242, now() + interval '1 minute')`,
    [id, redisPrefix],
  );
  return () => sql(database.url, `DELETE FROM service_instances WHERE id = $1`, [id]);
}

describe("confirmRevocation", () => {
  it("told through Redis: the instances on the same prefix need no confirmation (the epoch reaches them)", async () => {
    const remove = await stuckInstance("aaaaaaaa-same-prefix", PREFIX);
    try {
      const key = await revokedKey();
      expect(key.sharedCache).toBe("told");
      const started = Date.now();
      expect(await confirmRevocation(r, key.id, key.sharedCache, SHORT_MS)).toEqual({ confirmed: true, via: "redis" });
      expect(Date.now() - started).toBeLessThan(SHORT_MS);
    } finally {
      await remove();
    }
  });

  it("a live instance without Redis that never confirms: not confirmed, named, after the wait; the portal answers 202 saying so", async () => {
    const remove = await stuckInstance("bbbbbbbb-no-redis", null);
    try {
      const key = await revokedKey();
      const reach = await confirmRevocation(r, key.id, key.sharedCache, SHORT_MS);
      expect(reach.confirmed).toBe(false);
      if (reach.confirmed) return;
      expect(reach.missing.map((i) => [i.id, i.host, i.pid])).toEqual([["bbbbbbbb-no-redis", "stuck-host", 4242]]);
      expect(reach.waitedMs).toBeGreaterThanOrEqual(SHORT_MS);
      const answer = revocationAnswer({ summary: { id: key.id } }, reach, "The key is revoked");
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ confirmed: false, unconfirmed: ["bbbbbbbb"] });
      expect(answer.body.notice).toMatch(
        /^The key is revoked in the database, but not yet confirmed on instance bbbbbbbb of the service .*takes effect there as soon as that instance reads the database again/,
      );
    } finally {
      await remove();
    }
  });

  it("Redis could not be told: every live instance must confirm; one that never does is named", async () => {
    const remove = await stuckInstance("cccccccc-same-prefix", PREFIX);
    try {
      const key = await revokedKey("deferred");
      const reach = await confirmRevocation(r, key.id, key.sharedCache, SHORT_MS);
      expect(reach.confirmed).toBe(false);
      expect(reach.confirmed ? [] : reach.missing.map((i) => i.id)).toEqual(["cccccccc-same-prefix"]);
    } finally {
      await remove();
    }
  });

  it("Redis could not be told: confirmed once the instance records the revocation from the database", async () => {
    const remove = await stuckInstance("dddddddd-confirms", PREFIX);
    try {
      const key = await revokedKey("deferred");
      // the instance's watch records the newest revocation a moment later (as a running server's does)
      const confirming = new Promise((resolve) => setTimeout(resolve, 300)).then(() =>
        sql(
          database.url,
          `UPDATE service_instances SET "revocationsSeenAt" = (SELECT max("revokedAt") FROM api_keys) WHERE id = 'dddddddd-confirms'`,
        ),
      );
      expect(await confirmRevocation(r, key.id, key.sharedCache, CONFIRM_MS)).toEqual({
        confirmed: true,
        via: "database",
      });
      await confirming;
      expect(revocationAnswer({}, { confirmed: true, via: "database" }, "The key is revoked")).toEqual({
        body: { confirmed: true },
        status: 200,
      });
    } finally {
      await remove();
    }
  });

  it("the revoking process's own instance is not waited for: it cleared its own cache", async () => {
    const remove = await stuckInstance(r.instanceId, null);
    try {
      const key = await revokedKey("deferred");
      expect((await confirmRevocation(r, key.id, key.sharedCache, SHORT_MS)).confirmed).toBe(true);
    } finally {
      await remove();
    }
  });
});
