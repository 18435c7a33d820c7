import "server-only";
import { iso6, isoOrNull } from "@/lib/time-format";
import { db } from "@/lib/db";
import { memo } from "@/lib/data/memo";

// The status page's read model: how fresh each index and series is, the last hour the engine
// computed, constituents whose quotes are stale, and the incidents those facts amount to. All
// from the database; nothing here is typed in by hand.

const TTL = 5000;
const HOUR_MS = 3_600_000;

export type Freshness = "fresh" | "late" | "stale" | "final";

export interface IndexFreshness {
  ticker: string;
  name: string;
  publicStatus: "active" | "ceased" | "resolved";
  lastLevelAt: string | null;
  ageSeconds: number | null;
  stale: boolean;
  staleMarkets: number;
  totalMarkets: number;
  freshness: Freshness;
}

export interface SeriesFreshness {
  ticker: string;
  slug: string;
  name: string;
  lastComputedAt: string | null;
  lastPublishedAt: string | null;
  status: string | null;
  publicationState: string | null;
  ageSeconds: number | null;
  freshness: Freshness;
}

export interface StaleMarket {
  indexTicker: string;
  conditionId: string;
  label: string;
  lastSnapshotAt: string | null;
  limitSeconds: number;
}

export interface Incident {
  severity: "major" | "minor";
  subject: string;
  title: string;
  detail: string;
  since: string | null;
}

export interface StatusView {
  generatedAt: string;
  lastComputedHour: string | null;
  engineAgeSeconds: number | null;
  tickSeconds: number;
  indices: IndexFreshness[];
  series: SeriesFreshness[];
  staleMarkets: StaleMarket[];
  incidents: Incident[];
}

function freshnessOf(ageMs: number | null, tickSeconds: number): Freshness {
  if (ageMs === null) return "stale";
  if (ageMs <= (tickSeconds * 1000 + HOUR_MS) ) return "fresh";
  if (ageMs <= 6 * HOUR_MS) return "late";
  return "stale";
}

/** Everything /status shows, as of `now`. `tickSeconds` is the engine's interval. */
export function statusView(tickSeconds: number, now = new Date()): Promise<StatusView> {
  return memo(`status:${tickSeconds}`, TTL, () => loadStatus(tickSeconds, now));
}

async function loadStatus(tickSeconds: number, now: Date): Promise<StatusView> {
  const prisma = await db();
  const [engine, indexRows, seriesRows, marketRows] = await Promise.all([
    prisma.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } }),
    prisma.$queryRaw<
      Array<{ ticker: string; name: string; ceasedAt: Date | null; resolvedAt: Date | null; t: Date | null; stale: boolean | null; staleMarketsCount: number | null; totalMarketsCount: number | null }>
    >`
      SELECT i.ticker, i.name, i."ceasedAt", i."resolvedAt", l.t, l.stale, l."staleMarketsCount", l."totalMarketsCount"
      FROM indices i
      LEFT JOIN LATERAL (SELECT t, stale, "staleMarketsCount", "totalMarketsCount" FROM index_levels WHERE "indexId" = i.id ORDER BY t DESC LIMIT 1) l ON true
      WHERE i.listed
      ORDER BY i.ticker`,
    prisma.$queryRaw<
      Array<{ ticker: string; slug: string; name: string; retiredAt: Date | null; computedAt: Date | null; status: string | null; publicationState: string | null; publishedAt: Date | null }>
    >`
      SELECT s.ticker, s.slug, s.name, s."retiredAt", t."computedAt", t.status, t."publicationState",
        (SELECT max(p."computedAt") FROM volatility_ticks p WHERE p."seriesId" = s.id AND p."publicationState" = 'published') AS "publishedAt"
      FROM volatility_series s
      LEFT JOIN LATERAL (SELECT "computedAt", status, "publicationState" FROM volatility_ticks WHERE "seriesId" = s.id ORDER BY "computedAt" DESC LIMIT 1) t ON true
      WHERE s.listed
      ORDER BY s.ticker`,
    prisma.$queryRaw<Array<{ ticker: string; conditionId: string; label: string; lastSeen: Date | null; limitSeconds: number }>>`
      WITH current AS (
        SELECT DISTINCT ON (c."indexId") c.id, c."indexId" FROM compositions c ORDER BY c."indexId", c."effectiveAt" DESC
      )
      SELECT i.ticker, m."conditionId", m.label, i."stalenessLimitSeconds" AS "limitSeconds",
        (SELECT max(s."observedAt") FROM market_snapshots s WHERE s."conditionId" = m."conditionId") AS "lastSeen"
      FROM current cur
      JOIN indices i ON i.id = cur."indexId"
      JOIN composition_members m ON m."compositionId" = cur.id
      JOIN markets mk ON mk."conditionId" = m."conditionId"
      WHERE i.listed AND i."ceasedAt" IS NULL AND i."resolvedAt" IS NULL AND mk."resolvedAt" IS NULL
      ORDER BY i.ticker, m.label`,
  ]);

  const nowMs = now.getTime();
  const lastTick = engine?.lastTickAt ?? null;
  const age = (d: Date | null) => (d ? Math.max(0, Math.round((nowMs - d.getTime()) / 1000)) : null);

  const indices: IndexFreshness[] = indexRows.map((r) => {
    const publicStatus = r.resolvedAt ? "resolved" : r.ceasedAt ? "ceased" : "active";
    const ageSeconds = age(r.t);
    return {
      ticker: r.ticker,
      name: r.name,
      publicStatus,
      lastLevelAt: isoOrNull(r.t),
      ageSeconds,
      stale: r.stale ?? false,
      staleMarkets: r.staleMarketsCount ?? 0,
      totalMarkets: r.totalMarketsCount ?? 0,
      freshness: publicStatus !== "active" ? "final" : freshnessOf(ageSeconds === null ? null : ageSeconds * 1000, tickSeconds),
    };
  });
  const series: SeriesFreshness[] = seriesRows.map((r) => {
    const ageSeconds = age(r.computedAt);
    return {
      ticker: r.ticker,
      slug: r.slug,
      name: r.name,
      lastComputedAt: isoOrNull(r.computedAt),
      lastPublishedAt: isoOrNull(r.publishedAt),
      status: r.status,
      publicationState: r.publicationState,
      ageSeconds,
      freshness: r.retiredAt ? "final" : freshnessOf(ageSeconds === null ? null : ageSeconds * 1000, tickSeconds),
    };
  });
  // A constituent is stale when its newest quote is older than its index's staleness limit at
  // the last computed hour (the engine's own rule).
  const reference = lastTick?.getTime() ?? nowMs;
  const staleMarkets: StaleMarket[] = marketRows
    .filter((m) => !m.lastSeen || reference - m.lastSeen.getTime() > m.limitSeconds * 1000)
    .map((m) => ({ indexTicker: m.ticker, conditionId: m.conditionId, label: m.label, lastSnapshotAt: isoOrNull(m.lastSeen), limitSeconds: m.limitSeconds }));

  const incidents: Incident[] = [];
  const engineAge = age(lastTick);
  if (engineAge === null || engineAge * 1000 > tickSeconds * 1000 + HOUR_MS) {
    incidents.push({
      severity: "major",
      subject: "Engine",
      title: lastTick ? "Computation is behind" : "Nothing computed yet",
      detail: lastTick ? `The last computed hour is ${iso6(lastTick)}; a new hour is due every ${Math.round(tickSeconds / 60)} minutes.` : "The engine has not computed any hour.",
      since: isoOrNull(lastTick),
    });
  }
  for (const s of series) {
    if (s.publicationState === "withheld") {
      incidents.push({
        severity: "minor",
        subject: s.ticker,
        title: `Newest value withheld (${s.status ?? "suspended"})`,
        detail: `The computation at ${s.lastComputedAt} failed its publication checks; the page and the API show the value of ${s.lastPublishedAt ?? "no earlier hour"}.`,
        since: s.lastComputedAt,
      });
    } else if (s.status === "flagged") {
      incidents.push({ severity: "minor", subject: s.ticker, title: "Newest value flagged", detail: "Published with at least one publication check failing (see the series page).", since: s.lastComputedAt });
    }
  }
  for (const i of indices) {
    if (i.publicStatus === "active" && i.stale) {
      incidents.push({
        severity: "minor",
        subject: i.ticker,
        title: "Stale constituents",
        detail: `${i.staleMarkets} of ${i.totalMarkets} constituents had no fresh quote at the last level.`,
        since: i.lastLevelAt,
      });
    }
  }
  return {
    generatedAt: iso6(now),
    lastComputedHour: isoOrNull(lastTick),
    engineAgeSeconds: engineAge,
    tickSeconds,
    indices,
    series,
    staleMarkets,
    incidents,
  };
}
