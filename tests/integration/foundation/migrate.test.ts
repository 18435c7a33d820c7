import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, createDatabase, dropDatabase, uniqueName } from "../support/pg";
import pg from "pg";

const name = uniqueName("pmb_mig");
let url = "";

beforeAll(async () => {
  url = await createDatabase(name);
});
afterAll(async () => {
  await dropDatabase(name);
});

function migrate() {
  return spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
}

describe("npm run db:migrate on a real PostgreSQL server", () => {
  it("migrates a fresh, empty database from zero, then finds nothing pending", async () => {
    const tablesBefore = await admin(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const r = await c.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
      await c.end();
      return r.rows[0].n as number;
    });
    expect(tablesBefore).toBe(0);

    const first = migrate();
    expect(first.status, first.stderr + first.stdout).toBe(0);
    expect(first.stdout + first.stderr).toMatch(/successfully applied|Applying migration/i);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const tables = await c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      const names = tables.rows.map((r) => r.table_name as string);
      for (const t of [
        "users",
        "api_keys",
        "usage_counters",
        "index_levels",
        "volatility_ticks",
        "reconstitution_events",
        "_prisma_migrations",
      ]) {
        expect(names).toContain(t);
      }
      const levelType = await c.query(
        "SELECT numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'index_levels' AND column_name = 'level'",
      );
      expect(levelType.rows[0]).toEqual({ numeric_precision: 20, numeric_scale: 8 });
      const applied = await c.query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL`);
      expect(applied.rowCount).toBeGreaterThan(0);
    } finally {
      await c.end();
    }

    const second = migrate();
    expect(second.status).toBe(0);
    expect(second.stdout + second.stderr).toMatch(/No pending migrations/i);
  });

  it("stops with one clear line naming the host when the server cannot be reached", () => {
    const r = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
      env: { ...process.env, DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing" },
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("127.0.0.1:1");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
