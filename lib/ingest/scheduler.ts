import "server-only";
import { config } from "@/lib/config";
import { asJob, db, describeDbError } from "@/lib/db";
import { catchUp } from "@/lib/ingest/engine-runner";
import { catalogUsesVenues, collect, collectorSettings, describeCollect } from "@/lib/ingest/collector";
import { recordIncidents } from "@/lib/incidents/record-incidents";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { onShutdown } from "@/lib/server/shutdown";

/** Each ENGINE_TICK_SECONDS (aligned to the hour by default): collects the venues the catalog names, then computes. */
export function startScheduler(): void {
  const c = config();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const delay = () => {
    const period = c.ENGINE_TICK_SECONDS * 1000;
    // a few seconds past the boundary, so the hour's snapshots are in
    return period - (Date.now() % period) + 5_000;
  };
  const run = () => asJob(tick);
  const tick = async () => {
    try {
      const prisma = await db();
      if (!c.demoMarket && (await catalogUsesVenues(prisma))) {
        try {
          const collected = await collect(prisma, collectorSettings());
          console.log(`[collector] ${describeCollect(collected).trimEnd().split("\n").slice(0, 3).join(" | ")}`);
        } catch (error) {
          console.error(`[collector] run failed: ${describeDbError(error)}`);
        }
      }
      // The catalog in force was applied at start or by the operator: the tick does not re-read the file.
      const r = await catchUp(prisma, { seed: c.DEMO_SEED, demo: c.demoMarket, catalog: null });
      if (r.hours) console.log(`[engine] computed ${r.hours} hour(s) up to ${r.lastTickAt?.toISOString()}`);
      const incidents = await recordIncidents(prisma, c.ENGINE_TICK_SECONDS);
      if (incidents.opened.length || incidents.closed) console.log(`[incidents] opened ${incidents.opened.join(", ") || "none"}; closed ${incidents.closed}`);
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
