import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newKey, testDb } from "../support/api";

// Rule (lib/keys/usage-meter.ts, `apply`): a flush of many busy keys writes the request log in
// slices of whole keys, each in a transaction of its own recorded in usage_journal_segments, so a
// journal replayed after a crash between two of them writes the missing slices once and counts
// nothing twice.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-meter-slices-"));
  dirs.push(dir);
  return dir;
};

describe("the request log of a large flush", () => {
  it("is written in slices of whole keys; a replay after a crash between slices writes the missing one, counting nothing twice", async () => {
    const { createMeter, LOG_SLICE_ROWS, REQUEST_LOG_SIZE } = await import("@/lib/keys/usage-meter");
    const { createJournals, journalDir } = await import("@/lib/plumbing/journal");
    const { createShutdown } = await import("@/lib/plumbing/shutdown");
    const db = await testDb();
    const perSlice = Math.floor(LOG_SLICE_ROWS / REQUEST_LOG_SIZE);
    const KEYS = 3 * perSlice;
    const PER_KEY = 150;
    const keys = await Promise.all(Array.from({ length: KEYS }, () => newKey()));

    const dir = tempDir();
    const journals = createJournals();
    const meter = createMeter({ db: testDb, dataDir: dir, flushMs: 3_600_000, journals, shutdown: createShutdown() });
    await meter.startJournal();
    const T = Date.UTC(2031, 2, 3, 4, 0, 0);
    const ids = new Map<string, string[]>();
    for (const key of keys) {
      const list: string[] = [];
      for (let i = 0; i < PER_KEY; i++) {
        const requestId = randomUUID();
        list.push(requestId);
        meter.record(key.id, "/v1/indices", 200, T + i, {
          requestId,
          method: "GET",
          path: `/v1/indices?n=${i}`,
          errorCode: null,
        });
      }
      ids.set(key.id, list);
    }
    journals.flush();
    const [name] = fs.readdirSync(journalDir(dir)).filter((f) => f.startsWith("usage-"));
    const journaled = fs.readFileSync(path.join(journalDir(dir), name!));
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
    const expectLogs = async () => {
      for (const key of keys) {
        expect(await logOf(key.id)).toEqual(ids.get(key.id)!.slice(-REQUEST_LOG_SIZE));
        expect(await countOf(key.id)).toBe(PER_KEY);
      }
    };
    await expectLogs();
    const segments = await db.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT name FROM usage_journal_segments WHERE name LIKE $1 ORDER BY name`,
      `${name}%`,
    );
    expect(segments.map((s) => s.name)).toEqual([name, `${name}#log1`, `${name}#log2`]);

    // A crash after the second slice: the third's segment and rows are not there, and the
    // journal file is left, as a dead process's (its segments named after it).
    const lastKeys = keys.slice(2 * perSlice).map((k) => k.id);
    await db.$executeRawUnsafe(`DELETE FROM usage_journal_segments WHERE name = $1`, `${name}#log2`);
    await db.$executeRawUnsafe(`DELETE FROM request_log WHERE "keyId" = ANY($1::uuid[])`, lastKeys);
    const dead = "usage-deadproc0-1.jnl";
    await db.$executeRawUnsafe(
      `UPDATE usage_journal_segments SET name = replace(name, $1, $2) WHERE name LIKE $3`,
      name,
      dead,
      `${name}%`,
    );
    const restart = tempDir();
    fs.mkdirSync(journalDir(restart), { recursive: true });
    fs.writeFileSync(path.join(journalDir(restart), dead), journaled);

    const again = createMeter({
      db: testDb,
      dataDir: restart,
      flushMs: 3_600_000,
      journals: createJournals(),
      shutdown: createShutdown(),
    });
    expect(await again.startJournal()).toBe(KEYS * PER_KEY);
    await again.flush();
    expect(fs.existsSync(path.join(journalDir(restart), dead))).toBe(false);
    await expectLogs();
    const replayed = await db.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT name FROM usage_journal_segments WHERE name LIKE $1 ORDER BY name`,
      `${dead}%`,
    );
    expect(replayed.map((s) => s.name)).toEqual([dead, `${dead}#log1`, `${dead}#log2`]);
  });
});
