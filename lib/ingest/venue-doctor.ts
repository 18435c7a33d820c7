import "server-only";
import type { Db } from "@/lib/db";
import { universeSelectors } from "@/lib/catalog/compile";
import { universeSchema } from "@/lib/catalog/schema";
import type { CommandIo } from "@/lib/venues/connect";
import { venueEndpoints } from "@/lib/venues/connect";
import { formatDoctor, venueDoctor, type DoctorTargets } from "@/lib/venues/doctor";
import { config, parseConfig } from "@/lib/config";

/** What the applied catalog asks of the venues: its indices' selectors and its volatility series' events. */
export async function doctorTargets(prisma: Db): Promise<DoctorTargets> {
  const t: DoctorTargets = { polymarket: { tags: [], events: [] }, kalshi: { series: [], events: [] } };
  for (const row of await prisma.index.findMany({
    where: { removedAt: null, ceasedAt: null },
    select: { universe: true },
  })) {
    const u = universeSchema.safeParse(row.universe);
    if (!u.success) continue;
    for (const s of universeSelectors(u.data)) {
      const [venue, kind, value] = s.split(":", 3) as [string, string, string];
      if (venue === "polymarket") (kind === "tag" ? t.polymarket.tags : t.polymarket.events).push(value);
      if (venue === "kalshi") (kind === "series" ? t.kalshi.series : t.kalshi.events).push(value);
    }
  }
  for (const s of await prisma.volatilitySeries.findMany({
    where: { ceasedAt: null, venue: { in: ["polymarket", "kalshi"] } },
    select: { venue: true, event: true },
  })) {
    (s.venue === "polymarket" ? t.polymarket.events : t.kalshi.events).push(s.event);
  }
  const unique = (xs: string[]) => [...new Set(xs)].sort();
  return {
    polymarket: { tags: unique(t.polymarket.tags), events: unique(t.polymarket.events) },
    kalshi: { series: unique(t.kalshi.series), events: unique(t.kalshi.events) },
  };
}

/**
 * `venues doctor`: one read of every endpoint the applied catalog uses (lib/venues/doctor.ts), as
 * a table; exit 1 when one drifted (another shape, a deprecation header, a 404 or 410) or did not
 * answer, 0 otherwise.
 */
export async function doctorCommand(prisma: Db, io: CommandIo): Promise<number> {
  const e = { ...venueEndpoints(io.env ? parseConfig(io.env) : config()), ...io.endpoints };
  const rows = await venueDoctor(
    {
      polymarketGammaUrl: e.polymarketGammaUrl,
      polymarketClobUrl: e.polymarketClobUrl,
      kalshiApiUrl: e.kalshiApiUrl,
      timeoutMs: e.timeoutMs,
    },
    await doctorTargets(prisma),
  );
  io.out(formatDoctor(rows));
  return rows.some((r) => r.drift || r.failed) ? 1 : 0;
}
