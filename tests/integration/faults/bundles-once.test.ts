import { describe, expect, it } from "vitest";
import { sql } from "./support";
import { demoProcessDatabase } from "../support/demo-process-database";

// Several instances reach the closed months' bundles at once (the cluster's workers at their first
// start, each after its start-up catch-up): one builds them, under the engine's lock, and the
// others skip, instead of all computing the same months and racing to insert them (PostgreSQL
// then logs unique-key violations). Two clients of their own play the two workers.
const database = demoProcessDatabase("bundlesonce");

describe("closed-month bundles with several instances", () => {
  it("one instance builds each month, the other skips; no month is computed twice", async () => {
    const { closeRoot, root } = await import("@/lib/root");
    await closeRoot(); // a root of an earlier file in this process would point at its database
    const { runBackfill } = await import("@/lib/server/backfill");
    const { DEMO_CATALOG_FILE, readCatalogFile } = await import("@/lib/ingest/catalog-apply");
    const { buildBundlesOnce } = await import("@/lib/ingest/bundles-once");
    const { createDatabase } = await import("@/lib/db");
    const { parseConfig } = await import("@/lib/config");

    // 32 days of history span at least one closed month whatever the date.
    // A background job, as the server runs it (its queries have DB_JOB_TIMEOUT_MS).
    const prisma = await root().db();
    await root().database.asJob(() =>
      runBackfill(
        prisma,
        { seed: 20261121, demo: true, catalog: readCatalogFile(DEMO_CATALOG_FILE), backfillDays: 32 },
        false,
        () => undefined,
      ),
    );
    const workers = [createDatabase(parseConfig()), createDatabase(parseConfig())];
    try {
      // Both connected first, then started together, as two workers finishing their start-up.
      const clients = await Promise.all(workers.map((w) => w.client()));
      await Promise.all(clients.map((c) => c.$queryRawUnsafe("SELECT 1")));
      // As the server runs it: a background job, whose queries have DB_JOB_TIMEOUT_MS.
      const [a, b] = await Promise.all(clients.map((c, i) => workers[i]!.asJob(() => buildBundlesOnce(c, false))));
      const built = [...a!, ...b!];
      expect(built.length).toBeGreaterThan(0);
      expect([a!.length, b!.length].sort()).toEqual([0, built.length]);
      expect(new Set(built).size).toBe(built.length);
      const rows = await sql<{ month: string }>(database.url, "SELECT month FROM snapshot_bundles ORDER BY month");
      expect(rows.map((r) => r.month)).toEqual([...built].sort());
      // A later call (the hourly tick) finds nothing left to build.
      expect(await workers[0]!.asJob(() => buildBundlesOnce(clients[0]!, false))).toEqual([]);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  }, 300_000);
});
