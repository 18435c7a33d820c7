import "server-only";
import type { Db } from "@/lib/db";
import { floorHour, MS_PER_HOUR } from "@/lib/engine/time-format";
import type { Prisma } from "@/lib/generated/prisma/client";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { insertHistorySnapshots } from "@/lib/ingest/back-calculate";
import { historyHours } from "@/lib/ingest/history-store";
import { NOTHING_RESTATED, restate, type RestateResult } from "@/lib/ingest/restate";
import type { Venues } from "@/lib/venues/connect";
import { readHistory, type HistoryMarket } from "@/lib/venues/price-history";
import type { VenueName } from "@/lib/venues/types";

/** Missed hours are looked for this far back (each run asks the venue once per market with a gap). */
export const GAP_LOOKBACK_HOURS = 48;

export interface GapFill {
  /** open markets with at least one missed hour */
  markets: number;
  /** hours x markets filled from the venues' price history */
  filled: number;
  requests: number;
  restated: RestateResult;
  problems: string[];
}

const seriesOf = (selectors: readonly string[]) =>
  selectors.find((s) => s.startsWith("kalshi:series:"))?.slice("kalshi:series:".length) ?? null;

/**
 * Hours the collector missed (a venue or this service was down, or it started after an entry's
 * launch): for every open venue market, the hours of the look-back (or since `since`, when
 * earlier) since its listing without a stored read, before `now`'s hour, are read
 * from the venue's price history and stored as `history` snapshots; the hours already computed are
 * then recomputed under the restatement rules (values marked history-filled, stale flags corrected).
 * Requests go through `venues`, within each venue's budget shared with the process's other jobs.
 */
export async function fillMissedHours(
  prisma: Db,
  venues: Venues,
  options: { now?: Date; since?: Date | null } = {},
): Promise<GapFill> {
  const hour = floorHour(options.now ?? new Date());
  const lookback = hour.getTime() - GAP_LOOKBACK_HOURS * MS_PER_HOUR;
  // a launch before the look-back (a service started long after it): its hours since are filled too
  const from = new Date(options.since ? Math.min(lookback, floorHour(options.since).getTime()) : lookback);
  const result: GapFill = { markets: 0, filled: 0, requests: 0, restated: NOTHING_RESTATED, problems: [] };
  const { markets, missing } = await missedHours(prisma, from, hour);
  result.markets = missing.size;
  if (missing.size === 0) return result;

  const wanted: HistoryMarket[] = markets
    .filter((m) => missing.has(m.conditionId))
    .map((m) => ({
      venue: m.venue as VenueName,
      conditionId: m.conditionId,
      venueRef: m.venueRef!,
      series: seriesOf(m.selectors),
    }));
  const first = new Date(Math.min(...[...missing.values()].map((h) => h[0]!)));
  const last = new Date(hour.getTime() - MS_PER_HOUR);
  const rows: Prisma.MarketSnapshotCreateManyInput[] = [];
  for (const venue of ["polymarket", "kalshi"] as const) {
    const list = wanted.filter((m) => m.venue === venue);
    if (list.length === 0) continue;
    const http = venues.http(venue, { keepRaw: false });
    for (const r of await readHistory(http, venues.endpoints, list, first, last)) {
      if ("problem" in r) {
        result.problems.push(`${r.conditionId}: ${r.problem}`);
        continue;
      }
      const gaps = new Set(missing.get(r.conditionId));
      for (const p of r.points) {
        if (!gaps.has(p.t.getTime())) continue;
        rows.push({
          conditionId: r.conditionId,
          observedAt: p.t,
          bestBid: p.bestBid.toString(),
          bestAsk: p.bestAsk.toString(),
          mid: p.mid.toString(),
          depthUsd: "0.00",
          ingested: true,
          source: "history",
        });
      }
    }
    result.requests += http.requests;
  }
  if (rows.length === 0) return result;
  result.restated = await prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
      result.filled = await insertHistorySnapshots(tx, rows);
      const earliest = new Date(Math.min(...rows.map((r) => (r.observedAt as Date).getTime())));
      const engine = await tx.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } });
      return engine && earliest <= engine.lastTickAt && result.filled > 0
        ? restate(tx, earliest, { now: new Date(Math.max(Date.now(), hour.getTime())) })
        : NOTHING_RESTATED;
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
  return result;
}

/**
 * The hours from `from` to before `until` without a stored price (a book read or a history price)
 * of each open venue market listed by then: what the gap filler reads from the venues' history.
 */
export async function missedHours(prisma: Db, from: Date, until: Date) {
  const markets = await prisma.market.findMany({
    where: {
      venue: { in: ["polymarket", "kalshi"] },
      resolvedAt: null,
      venueRef: { not: null },
      listedAt: { lt: until },
    },
    select: { conditionId: true, venue: true, venueRef: true, selectors: true, listedAt: true },
  });
  const missing = new Map<string, number[]>();
  if (markets.length === 0 || from >= until) return { markets, missing };
  const seen = await prisma.marketSnapshot.findMany({
    where: { conditionId: { in: markets.map((m) => m.conditionId) }, observedAt: { gte: from, lt: until } },
    select: { conditionId: true, observedAt: true },
  });
  const held = await historyHours(
    prisma,
    markets.map((m) => m.conditionId),
    from,
    new Date(until.getTime() - 1),
  );
  const have = new Set([...seen, ...held].map((s) => `${s.conditionId}|${s.observedAt.getTime()}`));
  for (const m of markets) {
    const hours: number[] = [];
    for (let t = Math.max(from.getTime(), m.listedAt.getTime()); t < until.getTime(); t += MS_PER_HOUR)
      if (!have.has(`${m.conditionId}|${t}`)) hours.push(t);
    if (hours.length) missing.set(m.conditionId, hours);
  }
  return { markets, missing };
}

export function describeGapFill(r: GapFill): string {
  if (r.filled === 0 && r.problems.length === 0) return "";
  const lines = [
    `filled ${r.filled} missed market-hour(s) of ${r.markets} market(s) from the venues' price history (${r.requests} requests)`,
  ];
  if (r.restated.hours)
    lines.push(
      `  recomputed ${r.restated.hours} hour(s) from ${r.restated.fromHour?.toISOString()}: ${r.restated.levelsRestated} index levels and ${r.restated.ticksRestated} volatility values restated`,
    );
  for (const p of r.problems.slice(0, 10)) lines.push(`  ${p}`);
  return `${lines.join("\n")}\n`;
}
