import { config } from "@/lib/config";
import { closeDb, db, describeDbError } from "@/lib/db";
import { runBackfill } from "@/lib/server/backfill";
import { startDurability } from "@/lib/server/durability";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { startScheduler } from "@/lib/ingest/scheduler";
import { publishOperatorEndpoint } from "@/lib/operator/endpoint";
import { onShutdown, installShutdown } from "@/lib/server/shutdown";

/** Opens (and in embedded mode migrates) the database and starts background work. */
export async function boot(): Promise<void> {
  const c = config();
  installShutdown();
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
    console.error(`[boot] ${describeDbError(error)}`);
  }
  onShutdown(closeDb, 100);
  if (c.embedded) publishOperatorEndpoint(c.PORT);
  await startDurability();
  if (c.demoMarket) {
    // In the background: pages, the API and /healthz (which shows the progress) are served meanwhile.
    void (async () => {
      try {
        await runBackfill(await db(), c.DEMO_SEED, c.embedded);
        const months = await buildMissingBundles(await db());
        if (months.length) console.log(`[snapshots] built ${months.join(", ")}`);
      } catch (error) {
        console.error(`[engine] demo catch-up failed: ${describeDbError(error)}`);
        if (!(error instanceof Error && /reach|ECONN/.test(error.message))) console.error(error);
      }
      if (c.ENGINE_SCHEDULER) startScheduler();
    })();
  }
}
