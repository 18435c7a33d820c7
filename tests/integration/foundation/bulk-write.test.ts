import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (lib/db.ts, Database.bulkWrite): the usage flush's writes run in one transaction on the
// driver beneath Prisma, on PostgreSQL (a connection of the pool) and embedded (PGlite): all of
// it commits or none of it does, and a failed one leaves the database usable for the next.

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function databaseOn(setup: "postgres" | "embedded") {
  const { createDatabase } = await import("@/lib/db");
  const { parseConfig } = await import("@/lib/config");
  let env: NodeJS.ProcessEnv;
  if (setup === "postgres") {
    const own: OwnDatabase = await ownMigratedDatabase("pmb_bulk");
    cleanups.push(own.drop);
    env = { ...process.env, DATABASE_URL: own.url };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bulk-"));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    env = { ...process.env, DATABASE_URL: "", DATA_DIR: dir };
  }
  const database = createDatabase(parseConfig(env));
  cleanups.push(() => database.close());
  return database;
}

const INSERT = `INSERT INTO usage_journal_segments (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`;

describe.each(["postgres", "embedded"] as const)("bulkWrite on %s", (setup) => {
  it("commits the whole work, rolls back the whole of a failed one, and serves the next", async () => {
    const database = await databaseOn(setup);
    const names = async () =>
      (
        await (
          await database.client()
        ).$queryRawUnsafe<Array<{ name: string }>>(`SELECT name FROM usage_journal_segments ORDER BY name`)
      ).map((r) => r.name);

    const changed = await database.bulkWrite(async (sql) => [await sql(INSERT, "a"), await sql(INSERT, "a")]);
    expect(changed).toEqual([1, 0]);

    await expect(
      database.bulkWrite(async (sql) => {
        await sql(INSERT, "b");
        await sql(`SELECT 1 / 0`);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await names()).toEqual(["a"]);

    // Several at once: each its own transaction, none left open by the failure above.
    await Promise.all(["c", "d", "e"].map((n) => database.bulkWrite((sql) => sql(INSERT, n))));
    expect(await names()).toEqual(["a", "c", "d", "e"]);
  });
});
