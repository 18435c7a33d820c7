import pg from "pg";
import { describe, expect, it } from "vitest";
import { until } from "./support";
import { demoProcessDatabase } from "../support/demo-process-database";

// A fresh install with several workers: one computes the history while the others find the
// engine lock taken. A backfill in progress is not an incident: the others wait for it (their
// backfill stays `running`, they raise no incident and start no ticks), and once it is done the
// data is current and nothing opens. The other worker is played by a connection of this test
// that holds the engine lock, as a worker's catch-up transaction does.
const database = demoProcessDatabase("bfworkers");

describe("start-up backfill beside another worker computing", () => {
  it("waits for the other worker instead of declaring itself done, raises no incident meanwhile, and opens none once the data is current", async () => {
    const { closeRoot } = await import("@/lib/root");
    await closeRoot(); // a root of an earlier file in this process would point at its database
    const { runBackfill } = await import("@/lib/server/backfill");
    const { statusFacts } = await import("@/lib/data/status");
    const { root } = await import("@/lib/root");
    const { recordIncidents } = await import("@/lib/incidents/record-incidents");
    const { DEMO_CATALOG_FILE, readCatalogFile } = await import("@/lib/ingest/catalog-apply");
    const { ENGINE_LOCK } = await import("@/lib/ingest/engine-runner");

    const otherWorker = new pg.Client({ connectionString: database.url });
    await otherWorker.connect();
    try {
      await otherWorker.query("SELECT pg_advisory_lock($1)", [ENGINE_LOCK]);
      const prisma = await root().db();
      let settled = false;
      const run = runBackfill(
        prisma,
        { seed: 20261121, demo: true, catalog: readCatalogFile(DEMO_CATALOG_FILE), backfillDays: 3 },
        false,
        () => undefined,
      );
      void run.then(
        () => (settled = true),
        () => (settled = true),
      );
      expect(await until(async () => root().progress.state === "running", 10_000)).not.toBeNaN();
      // Its catch-up has found the lock taken at least once: a session of this database waits on
      // nothing, so this one is seen through its attempts on pg_stat_activity's query text.
      expect(
        await until(
          async () =>
            (
              await otherWorker.query(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE '%pg_try_advisory_xact_lock%'",
              )
            ).rows[0].n > 0,
          30_000,
        ),
      ).not.toBeNaN();

      const during = await statusFacts(root().read, 60);
      expect(during.facts.backfilling).toBe(true);
      expect(during.conditions).toEqual([]);
      expect(settled).toBe(false);

      await otherWorker.query("SELECT pg_advisory_unlock($1)", [ENGINE_LOCK]);
      const done = await run;
      expect(done.state).toBe("done");
      expect(done.hoursDone).toBeGreaterThan(48); // it computed the history itself once it could
      const recorded = await recordIncidents(root().read, prisma, 60);
      expect(recorded.opened).toEqual([]);
      expect(await prisma.incident.count()).toBe(0);
    } finally {
      await otherWorker.end();
    }
  }, 180_000);
});
