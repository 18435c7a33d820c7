import "server-only";
import type { Db } from "@/lib/db";
import { floorHour, MS_PER_HOUR, nextHour } from "@/lib/engine/time-format";
import { awaitsBackCalculation } from "@/lib/ingest/engine-hour";
import { GAP_LOOKBACK_HOURS, missedHours } from "@/lib/ingest/fill-gaps";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";

/**
 * The first hour whose values are not final yet: a closed month's bundle is built only once every
 * hour of the month is before it. A value is final when nothing this service does by itself will
 * still change it:
 * - its entry's back-calculation has run (an entry awaiting it has no values before its launch yet);
 * - the engine has computed its hour (a stored feed stops three hours past its newest read);
 * - within the gap filler's look-back (GAP_LOOKBACK_HOURS before `now`'s hour), every open venue
 *   market has a price of the hour itself: a book read or a price of the venue's history. An hour
 *   computed from a price carried from an earlier hour (the collector missed it, or the service
 *   started after the launch) is filled from the history and restated by the next runs; older
 *   hours are final as they stand (a later correction is a restatement, listed in the bundle of the
 *   month it is made in).
 */
export async function notFinalFrom(prisma: Db, now: Date): Promise<Date> {
  const hour = floorHour(now);
  let first = hour.getTime();
  const engine = await prisma.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } });
  if (engine) first = Math.min(first, nextHour(engine.lastTickAt).getTime());
  const select = { inceptionAt: true, launchAt: true, backCalculatedAt: true } as const;
  const entries = [
    ...(await prisma.index.findMany({
      where: { removedAt: null, backCalculatedAt: null, launchAt: { not: null } },
      select,
    })),
    ...(await prisma.volatilitySeries.findMany({
      where: { ceasedAt: null, backCalculatedAt: null, launchAt: { not: null } },
      select,
    })),
  ];
  for (const e of entries) if (awaitsBackCalculation(e)) first = Math.min(first, e.inceptionAt.getTime());
  const { missing } = await missedHours(prisma, new Date(hour.getTime() - GAP_LOOKBACK_HOURS * MS_PER_HOUR), hour);
  for (const hours of missing.values()) first = Math.min(first, hours[0]!);
  return new Date(first);
}

/**
 * Builds the bundle of every closed month whose values are all final (see notFinalFrom). Returns
 * the months built; `waiting` gets the first closed month left for a later run, with the first
 * hour not final.
 */
export async function buildFinalBundles(
  prisma: Db,
  now = new Date(),
  waiting?: Array<{ month: string; notFinalFrom: Date }>,
): Promise<string[]> {
  const finalUntil = await notFinalFrom(prisma, now);
  const months: string[] = [];
  const built = await buildMissingBundles(prisma, now, { finalUntil, waiting: months });
  for (const month of months) waiting?.push({ month, notFinalFrom: finalUntil });
  return built;
}
