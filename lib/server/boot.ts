import { DEMO_CATALOG_FILE, readCatalogFile } from "@/lib/ingest/catalog-apply";
import { validateCatalog } from "@/lib/catalog/validate";
import { runBackfill } from "@/lib/server/backfill";
import { startDurability } from "@/lib/server/durability";
import { root, type Root } from "@/lib/root";
import { recordIncidents } from "@/lib/incidents/record-incidents";
import { buildBundlesOnce } from "@/lib/ingest/bundles-once";
import { backCalculateNew, fillGaps, startScheduler } from "@/lib/ingest/scheduler";
import { publishOperatorEndpoint } from "@/lib/operator/endpoint";

/**
 * Opens (and in embedded mode migrates) the database and starts background work, once per root:
 * whichever copy of this module calls it (the server's bundle, or Next's copy under `next dev`,
 * through instrumentation.ts).
 */
export function boot(): Promise<void> {
  const r = root();
  r.booting ??= start(r);
  return r.booting;
}

async function start(r: Root): Promise<void> {
  const c = r.config;
  const { database, db, venues, progress, read } = r;
  try {
    await db();
  } catch (error) {
    // A running server keeps answering; /healthz and /v1 report `unavailable` until it returns.
    // The embedded database is this process's own: without it there is nothing to serve, so the
    // server exits with the reason (not "ready" and then 500s).
    if (c.embedded) {
      console.error(`[boot] cannot open the embedded database: ${(error as Error).message.split("\n")[0]}`);
      process.exit(1);
    }
    console.error(`[boot] ${database.describe(error)}`);
  }
  r.shutdown.on(database.close, 100);
  if (c.embedded) publishOperatorEndpoint(r.dataDir, c.PORT);
  await startDurability(r);
  // The catalog: CATALOG_FILE, else the demo's with the demo feed. An invalid file fails the start.
  const catalogFile = c.CATALOG_FILE ?? (c.demoMarket ? DEMO_CATALOG_FILE : null);
  const catalog = catalogFile ? readCatalogFile(catalogFile) : null;
  if (catalog) validateCatalog(catalog.file, catalog.text);
  const stored = !c.demoMarket && !catalog && (await hasAppliedCatalog(db));
  if (c.demoMarket || catalog || stored) {
    // In the background: pages, the API and /healthz (which shows the progress) are served meanwhile.
    progress.pending = true;
    void database.asJob(async () => {
      try {
        const r = await runBackfill(await db(), { seed: c.DEMO_SEED, demo: c.demoMarket, catalog }, c.embedded);
        if (r.catalog && !r.catalog.unchanged)
          console.log(`[catalog] ${r.catalog.sha256.slice(0, 12)} applied from ${catalogFile}`);
        if (!c.demoMarket) {
          // Back-calculation reads each new series' event itself (the collector has not run yet);
          // then the hours from a launch already past are filled from the venues' history before
          // the engine computes them (never from the last back-calculated prices carried on).
          const launch = await backCalculateNew(database, await db(), venues);
          await fillGaps(database, await db(), venues, launch);
          await runBackfill(await db(), { seed: c.DEMO_SEED, demo: false, catalog: null }, c.embedded);
        }
        await recordIncidents(read, await db(), c.ENGINE_TICK_SECONDS);
        const months = await buildBundlesOnce(await db(), c.embedded);
        if (months.length) console.log(`[snapshots] built ${months.join(", ")}`);
      } catch (error) {
        console.error(`[engine] catch-up failed: ${database.describe(error)}`);
        if (!(error instanceof Error && /reach|ECONN/.test(error.message))) console.error(error);
      } finally {
        progress.pending = false;
      }
      if (c.ENGINE_SCHEDULER) startScheduler(r);
    });
  }
}

/** A catalog applied earlier (by `npm run catalog -- apply`): the engine and collector run on it. */
async function hasAppliedCatalog(db: Root["db"]): Promise<boolean> {
  try {
    return (await (await db()).catalogVersion.count()) > 0;
  } catch {
    return false;
  }
}
