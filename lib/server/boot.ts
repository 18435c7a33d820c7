import { config } from "@/lib/config";
import { closeDb, db, describeDbError } from "@/lib/db";
import { catchUp } from "@/lib/ingest/engine-runner";
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
    console.error(`[boot] ${describeDbError(error)}`);
    if (c.embedded) throw error;
  }
  onShutdown(closeDb, 100);
  if (c.embedded) publishOperatorEndpoint(c.PORT);
  if (c.demoMarket) {
    try {
      const started = Date.now();
      const r = await catchUp(await db(), { seed: c.DEMO_SEED });
      if (r.hours) console.log(`[engine] demo market: computed ${r.hours} hour(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const months = await buildMissingBundles(await db());
      if (months.length) console.log(`[snapshots] built ${months.join(", ")}`);
    } catch (error) {
      console.error(`[engine] demo catch-up failed: ${describeDbError(error)}`);
      if (!(error instanceof Error && /reach|ECONN/.test(error.message))) console.error(error);
    }
    if (c.ENGINE_SCHEDULER) startScheduler();
  }
}
