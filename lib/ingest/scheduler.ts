import "server-only";
import { catchUp } from "@/lib/ingest/engine-runner";
import { catalogUsesVenues, collect, describeCollect } from "@/lib/ingest/collector";
import { recordIncidents } from "@/lib/incidents/record-incidents";
import { backCalculatePending, describeBackCalc } from "@/lib/ingest/back-calculate";
import { describeGapFill, fillMissedHours } from "@/lib/ingest/fill-gaps";
import type { Database, Db } from "@/lib/db";
import { buildBundlesOnce } from "@/lib/ingest/bundles-once";
import type { Root } from "@/lib/root";
import type { Venues } from "@/lib/venues/connect";

/** Each ENGINE_TICK_SECONDS (aligned to the hour by default): collects the venues the catalog names, then computes. */
export function startScheduler({
  config: c,
  database,
  db,
  venues,
  read,
  shutdown,
}: Pick<Root, "config" | "database" | "db" | "venues" | "read" | "shutdown">): void {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const delay = () => {
    const period = c.ENGINE_TICK_SECONDS * 1000;
    // a few seconds past the boundary, so the hour's snapshots are in
    return period - (Date.now() % period) + 5_000;
  };
  const run = () => database.asJob(tick);
  const tick = async () => {
    try {
      const prisma = await db();
      if (!c.demoMarket && (await catalogUsesVenues(prisma))) {
        try {
          const collected = await collect(prisma, venues);
          console.log(`[collector] ${describeCollect(collected).trimEnd().split("\n").slice(0, 3).join(" | ")}`);
        } catch (error) {
          console.error(`[collector] run failed: ${database.describe(error)}`);
        }
      }
      if (!c.demoMarket) {
        // back-calculated first: the hours from a launch before this one are then filled from the history
        const launch = await backCalculateNew(database, prisma, venues);
        await fillGaps(database, prisma, venues, launch);
      }
      // The catalog in force was applied at start or by the operator: the tick does not re-read the file.
      const r = await catchUp(prisma, { seed: c.DEMO_SEED, demo: c.demoMarket, catalog: null });
      if (r.hours) console.log(`[engine] computed ${r.hours} hour(s) up to ${r.lastTickAt?.toISOString()}`);
      // the writers above leave the read cache to their caller: the pages and the API see the tick now
      read.cache.clear();
      const incidents = await recordIncidents(read, prisma, c.ENGINE_TICK_SECONDS);
      if (incidents.opened.length || incidents.closed)
        console.log(`[incidents] opened ${incidents.opened.join(", ") || "none"}; closed ${incidents.closed}`);
      const months = await buildBundlesOnce(prisma, c.embedded);
      if (months.length) console.log(`[snapshots] built ${months.join(", ")}`);
    } catch (error) {
      console.error(`[engine] tick failed: ${database.describe(error)}`);
    }
    if (!stopped) {
      timer = setTimeout(run, delay());
      timer.unref();
    }
  };
  timer = setTimeout(run, delay());
  timer.unref();
  shutdown.on(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  }, 5);
}

/**
 * New catalog entries with a base date are back-calculated before the engine computes their live
 * hours. Returns the earliest launch of the entries back-calculated (null: none).
 */
export async function backCalculateNew(database: Database, prisma: Db, venues: Venues): Promise<Date | null> {
  try {
    const r = await backCalculatePending(prisma, venues);
    if (r) console.log(`[backfill] ${describeBackCalc(r).trimEnd().split("\n").join(" | ")}`);
    return r?.firstLaunch ?? null;
  } catch (error) {
    console.error(`[backfill] back-calculation failed: ${database.describe(error)}`);
    return null;
  }
}

/**
 * Hours the collector missed are filled from the venues' history once they answer again; with
 * `since` (the launch of entries just back-calculated), every hour from it on, so a service
 * started after a launch computes the hours since from their own prices, not from carried ones.
 */
export async function fillGaps(
  database: Database,
  prisma: Db,
  venues: Venues,
  since: Date | null = null,
): Promise<void> {
  try {
    const r = await fillMissedHours(prisma, venues, { since });
    const text = describeGapFill(r);
    if (text) console.log(`[collector] ${text.trimEnd().split("\n").join(" | ")}`);
  } catch (error) {
    console.error(`[collector] filling missed hours failed: ${database.describe(error)}`);
  }
}
