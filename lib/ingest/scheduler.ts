import "server-only";
import { config } from "@/lib/config";
import { db, describeDbError } from "@/lib/db";
import { catchUp } from "@/lib/ingest/engine-runner";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { onShutdown } from "@/lib/server/shutdown";

/** Runs the engine's catch-up every ENGINE_TICK_SECONDS (aligned to the hour by default). */
export function startScheduler(): void {
  const c = config();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const delay = () => {
    const period = c.ENGINE_TICK_SECONDS * 1000;
    // a few seconds past the boundary, so the hour's snapshots are in
    return period - (Date.now() % period) + 5_000;
  };
  const run = async () => {
    try {
      const prisma = await db();
      const r = await catchUp(prisma, { seed: c.DEMO_SEED });
      if (r.hours) console.log(`[engine] computed ${r.hours} hour(s) up to ${r.lastTickAt?.toISOString()}`);
      const months = await buildMissingBundles(prisma);
      if (months.length) console.log(`[snapshots] built ${months.join(", ")}`);
    } catch (error) {
      console.error(`[engine] tick failed: ${describeDbError(error)}`);
    }
    if (!stopped) {
      timer = setTimeout(run, delay());
      timer.unref();
    }
  };
  timer = setTimeout(run, delay());
  timer.unref();
  onShutdown(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  }, 5);
}
