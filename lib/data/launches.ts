import "server-only";
import { iso6 } from "@/lib/time-format";
import type { ReadContext } from "@/lib/data/read-cache";

// Base date and launch of an index or series whose history before its launch is back-calculated,
// for the pages (the /v1 objects keep exactly the spec's fields: `inceptionAt` is the base date).

const TTL = 10_000;

export interface EntryLaunch {
  /** the base date: inceptionAt, where the history starts */
  baseDate: string;
  /** the first hour computed from live book reads */
  launchAt: string;
  /** values after the launch priced from the venue's history (hours the collector missed) */
  historyFilled: number;
}

/** The launch of an index (`index`) or volatility series (`volatility`) by ticker; null when it has no back-calculated history. */
export function entryLaunch(
  rc: ReadContext,
  kind: "index" | "volatility",
  ticker: string,
): Promise<EntryLaunch | null> {
  return rc.cache.memo(`launch:${kind}:${ticker}`, TTL, async () => {
    const prisma = await rc.db();
    const row =
      kind === "index"
        ? await prisma.index.findUnique({ where: { ticker }, select: { id: true, inceptionAt: true, launchAt: true } })
        : await prisma.volatilitySeries.findUnique({
            where: { ticker },
            select: { id: true, inceptionAt: true, launchAt: true },
          });
    if (!row?.launchAt || row.launchAt <= row.inceptionAt) return null;
    const historyFilled =
      kind === "index"
        ? await prisma.indexLevel.count({ where: { indexId: row.id, basis: "history-filled" } })
        : await prisma.volatilityTick.count({ where: { seriesId: row.id, basis: "history-filled" } });
    return { baseDate: iso6(row.inceptionAt), launchAt: iso6(row.launchAt), historyFilled };
  });
}
