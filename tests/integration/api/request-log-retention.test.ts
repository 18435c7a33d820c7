import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newKey, testDb, testRoot } from "../support/api";

// Rule (lib/keys/usage-batch.ts): a batch is written in one transaction named after its journal
// file: its counters, and its requests inserted into the request log (never updated, never cut
// per key); a journal replayed after a crash counts and logs nothing twice. The request log is
// pruned by age (REQUEST_LOG_DAYS), on the first flush and hourly after.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-request-log-"));
  dirs.push(dir);
  return dir;
};

async function parts() {
  const { createMeter } = await import("@/lib/keys/usage-meter");
  const { createJournals, journalDir } = await import("@/lib/plumbing/journal");
  const { createShutdown } = await import("@/lib/plumbing/shutdown");
  const { database } = await testRoot();
  const meterIn = (dataDir: string, logDays = 30) =>
    createMeter({
      bulkWrite: database.bulkWrite,
      dataDir,
      flushMs: 3_600_000,
      logDays,
      journals: createJournals(),
      shutdown: createShutdown(),
    });
  return { meterIn, journalDir };
}

describe("the request log", () => {
  it("inserts every request of a batch once; a replay of its journal counts and logs nothing twice", async () => {
    const { meterIn, journalDir } = await parts();
    const db = await testDb();
    const keys = await Promise.all([newKey(), newKey()]);
    const dir = tempDir();
    const meter = meterIn(dir);
    await meter.startJournal();
    const T = Date.now() - 60_000;
    const ids = new Map<string, string[]>();
    for (const key of keys) {
      const list = Array.from({ length: 40 }, () => randomUUID());
      list.forEach((requestId, i) =>
        meter.record(key.id, "/v1/indices", 200, T + i, {
          requestId,
          method: "GET",
          path: `/v1/indices?n=${i}`,
          errorCode: null,
        }),
      );
      ids.set(key.id, list);
    }
    const [name] = fs.readdirSync(journalDir(dir)).filter((f) => f.startsWith("usage-"));
    await meter.flush();
    expect(fs.existsSync(path.join(journalDir(dir), name!))).toBe(false);

    const logOf = async (keyId: string) =>
      (
        await db.requestLogEntry.findMany({
          where: { keyId },
          orderBy: [{ at: "asc" }, { id: "asc" }],
          select: { requestId: true },
        })
      ).map((r) => r.requestId);
    const countOf = async (keyId: string) =>
      (await db.usageCounter.aggregate({ where: { keyId }, _sum: { count: true } }))._sum.count;
    for (const key of keys) {
      expect(await logOf(key.id)).toEqual(ids.get(key.id));
      expect(await countOf(key.id)).toBe(40);
    }

    // The same file found again after a crash (as a dead process's): already applied, skipped.
    const lines = keys
      .flatMap((key) =>
        ids
          .get(key.id)!
          .map((requestId, i) =>
            JSON.stringify([
              key.id,
              T + i - ((T + i) % 3_600_000),
              "/v1/indices",
              "2xx",
              T + i,
              200,
              requestId,
              "GET",
              `/v1/indices?n=${i}`,
              null,
            ]),
          ),
      )
      .join("\n");
    const dead = "usage-deadproc0-000001.jnl";
    await db.$executeRawUnsafe(`UPDATE usage_journal_segments SET name = $1 WHERE name = $2`, dead, name);
    const restart = tempDir();
    fs.mkdirSync(journalDir(restart), { recursive: true });
    fs.writeFileSync(path.join(journalDir(restart), dead), `${lines}\n`);
    const again = meterIn(restart);
    expect(await again.startJournal()).toBe(80);
    await again.flush();
    expect(fs.existsSync(path.join(journalDir(restart), dead))).toBe(false);
    for (const key of keys) {
      expect(await logOf(key.id)).toEqual(ids.get(key.id));
      expect(await countOf(key.id)).toBe(40);
    }
  });

  it("drops the requests older than REQUEST_LOG_DAYS and keeps the newer ones", async () => {
    const { meterIn } = await parts();
    const db = await testDb();
    const key = await newKey();
    const insert = (requestId: string, daysAgo: number) =>
      db.$executeRawUnsafe(
        `INSERT INTO request_log ("keyId", at, "requestId", method, endpoint, path, status)
         VALUES ($1::uuid, now() - make_interval(days => $2), $3, 'GET', '/v1', '/v1', 200)`,
        key.id,
        daysAgo,
        requestId,
      );
    await insert("old", 8);
    await insert("recent", 6);
    const meter = meterIn(tempDir(), 7);
    meter.record(key.id, "/v1", 200, Date.now(), { requestId: "now", method: "GET", path: "/v1", errorCode: null });
    await meter.flush();
    const kept = await db.requestLogEntry.findMany({ where: { keyId: key.id }, orderBy: { at: "asc" } });
    expect(kept.map((r) => r.requestId)).toEqual(["recent", "now"]);
  });
});

// Rule (lib/keys/usage-batch.ts, REQUEST_ROWS_PER_STATEMENT): the embedded database runs a
// statement on the server's thread, so a busy batch's request log goes in statements of a few
// hundred rows with the event loop turning between them (requests that came in meanwhile are
// answered), all in the batch's one transaction.
describe("a busy batch on the embedded database", () => {
  it("logs every request and lets the event loop turn between its statements", async () => {
    const { createDatabase } = await import("@/lib/db");
    const { parseConfig } = await import("@/lib/config");
    const { applyBatch, emptyBatch, logRequest } = await import("@/lib/keys/usage-batch");
    const { ensureUser, mintKey } = await import("@/lib/keys/manage-keys");
    const database = createDatabase(parseConfig({ ...process.env, DATABASE_URL: "", DATA_DIR: tempDir() }));
    try {
      const prisma = await database.client();
      const keyIds: string[] = [];
      for (let i = 0; i < 5; i++) {
        const user = await ensureUser(prisma, `busy-${i}@example.com`);
        keyIds.push((await mintKey(prisma, user)).summary.id);
      }
      const batch = emptyBatch(null);
      const T = Date.now() - 60_000;
      for (const keyId of keyIds)
        for (let i = 0; i < 100; i++)
          logRequest(batch, {
            keyId,
            atMs: T + i,
            endpoint: "/v1/indices",
            status: 200,
            requestId: randomUUID(),
            method: "GET",
            path: "/v1/indices",
            errorCode: null,
          });

      let turns = 0;
      let flushing = true;
      const turn = () => {
        if (!flushing) return;
        turns += 1;
        setImmediate(turn);
      };
      setImmediate(turn);
      await applyBatch(database.bulkWrite, batch);
      flushing = false;

      expect(await prisma.requestLogEntry.count()).toBe(500);
      expect(turns).toBeGreaterThanOrEqual(2); // 500 rows: three statements, two turns between them at least
    } finally {
      await database.close();
    }
  });
});
