import "server-only";
import { DEFAULT_GATES } from "@/lib/catalog/compile";
import { iso6, isoOrNull } from "@/lib/time-format";
import type { ReadContext } from "@/lib/data/read-cache";
import { conditionsOf, type Condition, type Facts } from "@/lib/data/incident-rule";
import type { z } from "zod";
import type * as shapes from "@/lib/data/status-shapes";

// The status page's read model (the page and /status.json): how fresh each index and series is,
// the last hour the engine computed, each venue's reads, constituents whose quotes are stale, the
// recorded incidents (lib/incidents) and notices on the newest values. All from the database.

const TTL = 5000;
const HOUR_MS = 3_600_000;

export type Freshness = z.infer<typeof shapes.freshness>;
export type IndexFreshness = z.infer<typeof shapes.indexFreshness>;
export type SeriesFreshness = z.infer<typeof shapes.seriesFreshness>;
export type StaleQuote = z.infer<typeof shapes.staleQuote>;
export type StaleMarket = z.infer<typeof shapes.staleMarket>;
export type StaleLeg = z.infer<typeof shapes.staleLeg>;

type QuoteRow = {
  ticker: string;
  conditionId: string;
  label: string;
  venue: string;
  lastSeen: Date | null;
  limitSeconds: number;
};

function staleQuote(r: QuoteRow): StaleQuote {
  return {
    conditionId: r.conditionId,
    label: r.label,
    venue: r.venue,
    lastSnapshotAt: isoOrNull(r.lastSeen),
    limitSeconds: r.limitSeconds,
  };
}

/**
 * The rows whose newest quote (`lastSeen`) is older than their limit at `referenceMs` (the last
 * computed hour), or that never had one: the engine's own staleness rule, for index constituents
 * and volatility legs alike.
 */
export function staleAt<T extends { lastSeen: Date | null; limitSeconds: number }>(
  rows: readonly T[],
  referenceMs: number,
): T[] {
  return rows.filter((r) => !r.lastSeen || referenceMs - r.lastSeen.getTime() > r.limitSeconds * 1000);
}

export type VenueStatus = z.infer<typeof shapes.venueStatus>;

export type IncidentView = z.infer<typeof shapes.incidentView>;

export type Notice = z.infer<typeof shapes.notice>;

export type StatusView = z.infer<typeof shapes.statusView>;

function freshnessOf(ageMs: number | null, tickSeconds: number): Freshness {
  if (ageMs === null) return "stale";
  if (ageMs <= tickSeconds * 1000 + HOUR_MS) return "fresh";
  if (ageMs <= 6 * HOUR_MS) return "late";
  return "stale";
}

const VENUE_LABELS: Record<string, string> = {
  demo: "Demo feed",
  polymarket: "Polymarket",
  kalshi: "Kalshi",
  file: "Ingested files",
};

/** Everything /status shows, as of `now`. `tickSeconds` is the engine's interval. */
export function statusView(rc: ReadContext, tickSeconds: number, now = new Date()): Promise<StatusView> {
  return rc.cache.memo(`status:${tickSeconds}`, TTL, () => loadStatus(rc, tickSeconds, now));
}

const incidentRef = (id: string) => `INC-${id.replaceAll("-", "").slice(0, 8).toUpperCase()}`;

type IncidentRow = {
  id: string;
  source: string;
  severity: string;
  subject: string;
  title: string;
  openedAt: Date;
  resolvedAt: Date | null;
  notes: Array<{ at: Date; body: string }>;
};

function incidentView(r: IncidentRow): IncidentView {
  return {
    ref: incidentRef(r.id),
    source: r.source === "operator" ? "operator" : "auto",
    severity: r.severity === "minor" ? "minor" : "major",
    subject: r.subject,
    title: r.title,
    openedAt: iso6(r.openedAt),
    resolvedAt: isoOrNull(r.resolvedAt),
    notes: r.notes.map((n) => ({ at: iso6(n.at), body: n.body })),
  };
}

const INCIDENT_SELECT = {
  id: true,
  key: true,
  source: true,
  severity: true,
  subject: true,
  title: true,
  openedAt: true,
  resolvedAt: true,
  notes: { select: { at: true, body: true }, orderBy: { at: "asc" } },
} as const;

/** Every incident, newest first (the status history page). */
export function incidentHistory(rc: ReadContext, limit = 200): Promise<IncidentView[]> {
  return rc.cache.memo(`incidents:${limit}`, TTL, async () => {
    const rows = await (
      await rc.db()
    ).incident.findMany({ orderBy: { openedAt: "desc" }, take: limit, select: INCIDENT_SELECT });
    return rows.map(incidentView);
  });
}

/** The rows the status page reads, in one round of queries. */
async function statusRows(rc: ReadContext) {
  const prisma = await rc.db();
  const [engine, indexRows, seriesRows, marketRows, legRows, health, drift] = await Promise.all([
    prisma.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } }),
    prisma.$queryRaw<
      Array<{
        ticker: string;
        name: string;
        ceasedAt: Date | null;
        resolvedAt: Date | null;
        t: Date | null;
        stale: boolean | null;
        staleMarketsCount: number | null;
        totalMarketsCount: number | null;
      }>
    >`
      SELECT i.ticker, i.name, i."ceasedAt", i."resolvedAt", l.t, l.stale, l."staleMarketsCount", l."totalMarketsCount"
      FROM indices i
      LEFT JOIN LATERAL (SELECT t, stale, "staleMarketsCount", "totalMarketsCount" FROM index_levels WHERE "indexId" = i.id ORDER BY t DESC LIMIT 1) l ON true
      WHERE i.listed
      ORDER BY i.ticker`,
    prisma.$queryRaw<
      Array<{
        ticker: string;
        slug: string;
        name: string;
        venue: string;
        retiredAt: Date | null;
        computedAt: Date | null;
        status: string | null;
        publicationState: string | null;
        publishedAt: Date | null;
      }>
    >`
      SELECT s.ticker, s.slug, s.name, s.venue, s."retiredAt", t."computedAt", t.status, t."publicationState",
        (SELECT max(p."computedAt") FROM volatility_ticks p WHERE p."seriesId" = s.id AND p."publicationState" = 'published') AS "publishedAt"
      FROM volatility_series s
      LEFT JOIN LATERAL (SELECT "computedAt", status, "publicationState" FROM volatility_ticks WHERE "seriesId" = s.id ORDER BY "computedAt" DESC LIMIT 1) t ON true
      WHERE s.listed
      ORDER BY s.ticker`,
    prisma.$queryRaw<QuoteRow[]>`
      WITH current AS (
        SELECT DISTINCT ON (c."indexId") c.id, c."indexId" FROM compositions c ORDER BY c."indexId", c."effectiveAt" DESC
      )
      SELECT i.ticker, m."conditionId", m.label, mk.venue, i."stalenessLimitSeconds" AS "limitSeconds",
        GREATEST((SELECT max(s."observedAt") FROM market_snapshots s WHERE s."conditionId" = m."conditionId"), (SELECT max(h."lastAt") FROM market_history_prices h WHERE h."conditionId" = m."conditionId")) AS "lastSeen"
      FROM current cur
      JOIN indices i ON i.id = cur."indexId"
      JOIN composition_members m ON m."compositionId" = cur.id
      JOIN markets mk ON mk."conditionId" = m."conditionId"
      WHERE i.listed AND i."ceasedAt" IS NULL AND i."resolvedAt" IS NULL AND mk."resolvedAt" IS NULL
      ORDER BY i.ticker, m.label`,
    prisma.$queryRaw<QuoteRow[]>`
      SELECT s.ticker, mk."conditionId", mk.label, mk.venue, COALESCE((s.gates->>'snapshotMaxAgeSeconds')::int, ${DEFAULT_GATES.snapshotMaxAgeSeconds}) AS "limitSeconds",
        GREATEST((SELECT max(ms."observedAt") FROM market_snapshots ms WHERE ms."conditionId" = mk."conditionId"), (SELECT max(h."lastAt") FROM market_history_prices h WHERE h."conditionId" = mk."conditionId")) AS "lastSeen"
      FROM volatility_series s
      CROSS JOIN LATERAL unnest(s."legConditionIds") AS leg("conditionId")
      JOIN markets mk ON mk."conditionId" = leg."conditionId"
      WHERE s.listed AND s."retiredAt" IS NULL AND s."ceasedAt" IS NULL AND mk."resolvedAt" IS NULL
      ORDER BY s.ticker, mk.label`,
    prisma.venueHealth.findMany({ orderBy: { venue: "asc" } }),
    prisma.venueDrift.findMany({
      where: { clearedAt: null },
      orderBy: { key: "asc" },
      select: { venue: true, endpoint: true, field: true, detail: true, firstSeenAt: true },
    }),
  ]);
  return { engine, indexRows, seriesRows, marketRows, legRows, health, drift };
}

type StatusRows = Awaited<ReturnType<typeof statusRows>>;
/** Seconds from a time to now, or null. */
type Age = (d: Date | null) => number | null;

function indexFreshness(indexRows: StatusRows["indexRows"], age: Age, tickSeconds: number): IndexFreshness[] {
  return indexRows.map((r) => {
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
      freshness:
        publicStatus !== "active" ? "final" : freshnessOf(ageSeconds === null ? null : ageSeconds * 1000, tickSeconds),
    };
  });
}

function seriesFreshness(seriesRows: StatusRows["seriesRows"], age: Age, tickSeconds: number): SeriesFreshness[] {
  return seriesRows.map((r) => {
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
}

/** Venues in use: those of active constituents and listed series, and those the collector reads. */
function venueStatuses(rows: StatusRows, staleMarkets: StaleMarket[], staleLegs: StaleLeg[]): VenueStatus[] {
  const { marketRows, seriesRows, health } = rows;
  const inUse = new Set<string>([
    ...marketRows.map((m) => m.venue),
    ...seriesRows.filter((s) => !s.retiredAt).map((s) => s.venue),
    ...health.map((h) => h.venue),
  ]);
  return [...inUse].sort().map((venue) => {
    const h = health.find((x) => x.venue === venue);
    const newest = marketRows
      .filter((m) => m.venue === venue && m.lastSeen)
      .reduce<Date | null>((a, m) => (!a || m.lastSeen! > a ? m.lastSeen : a), null);
    return {
      venue,
      label: VENUE_LABELS[venue] ?? venue,
      lastOkAt: isoOrNull(h ? h.lastOkAt : newest),
      lastRunAt: isoOrNull(h?.lastRunAt ?? null),
      // Each market once, whether it is stale as a constituent, as a leg or as both.
      staleMarkets: new Set([...staleMarkets, ...staleLegs].filter((m) => m.venue === venue).map((m) => m.conditionId))
        .size,
      failing: h?.failing ?? false,
      lastError: h?.lastError ?? null,
      lastErrorAt: isoOrNull(h?.lastErrorAt ?? null),
    };
  });
}

/** The notices above the tables: withheld or flagged series, indices with stale constituents. */
function noticesOf(indices: IndexFreshness[], series: SeriesFreshness[]): Notice[] {
  const notices: Notice[] = [];
  for (const s of series) {
    if (s.publicationState === "withheld") {
      notices.push({
        subject: s.ticker,
        title: `Newest value withheld (${s.status ?? "suspended"})`,
        detail: `The computation at ${s.lastComputedAt} failed its publication checks; the page and the API show the value of ${s.lastPublishedAt ?? "no earlier hour"}.`,
        since: s.lastComputedAt,
      });
    } else if (s.status === "flagged") {
      notices.push({
        subject: s.ticker,
        title: "Newest value flagged",
        detail: "Published with at least one publication check failing (see the series page).",
        since: s.lastComputedAt,
      });
    }
  }
  for (const i of indices) {
    if (i.publicStatus === "active" && i.stale) {
      notices.push({
        subject: i.ticker,
        title: "Stale constituents",
        detail: `${i.staleMarkets} of ${i.totalMarkets} constituents had no fresh quote at the last level.`,
        since: i.lastLevelAt,
      });
    }
  }
  return notices;
}

/** The facts of the status page (not cached): what the incident rule reads, and the page's tables. */
export async function statusFacts(
  rc: ReadContext,
  tickSeconds: number,
  now = new Date(),
): Promise<{ view: Omit<StatusView, "incidents" | "resolved">; facts: Facts; conditions: Condition[] }> {
  const rows = await statusRows(rc);
  const { engine, marketRows, legRows, drift } = rows;
  const nowMs = now.getTime();
  const lastTick = engine?.lastTickAt ?? null;
  const age = (d: Date | null) => (d ? Math.max(0, Math.round((nowMs - d.getTime()) / 1000)) : null);
  const indices = indexFreshness(rows.indexRows, age, tickSeconds);
  const series = seriesFreshness(rows.seriesRows, age, tickSeconds);
  // A constituent is stale when its newest quote is older than its index's staleness limit at
  // the last computed hour (the engine's own rule).
  const reference = lastTick?.getTime() ?? nowMs;
  const staleMarkets: StaleMarket[] = staleAt(marketRows, reference).map((m) => ({
    indexTicker: m.ticker,
    ...staleQuote(m),
  }));

  // Legs the same way, against their series' snapshot age gate.
  const staleLegs: StaleLeg[] = staleAt(legRows, reference).map((l) => ({ seriesTicker: l.ticker, ...staleQuote(l) }));

  const venues = venueStatuses(rows, staleMarkets, staleLegs);
  const engineAge = age(lastTick);
  const facts: Facts = {
    engineBehind:
      engineAge === null || engineAge * 1000 > tickSeconds * 1000 + HOUR_MS
        ? { lastComputedHour: isoOrNull(lastTick), tickMinutes: Math.round(tickSeconds / 60) }
        : null,
    venues,
    indices: indices.filter((i) => i.publicStatus === "active"),
    series,
    backfilling: rc.progress.state === "running",
    drift: drift.map((d) => ({
      venue: d.venue,
      endpoint: d.endpoint,
      field: d.field,
      detail: d.detail,
      since: iso6(d.firstSeenAt),
    })),
  };
  const notices = noticesOf(indices, series);
  return {
    view: {
      generatedAt: iso6(now),
      lastComputedHour: isoOrNull(lastTick),
      engineAgeSeconds: engineAge,
      tickSeconds,
      indices,
      series,
      venues,
      staleMarkets,
      staleLegs,
      notices,
    },
    facts,
    conditions: conditionsOf(facts),
  };
}

async function loadStatus(rc: ReadContext, tickSeconds: number, now: Date): Promise<StatusView> {
  const prisma = await rc.db();
  const since = new Date(now.getTime() - 30 * 86_400_000);
  const [{ view, conditions }, open, resolved] = await Promise.all([
    statusFacts(rc, tickSeconds, now),
    prisma.incident.findMany({ where: { resolvedAt: null }, orderBy: { openedAt: "desc" }, select: INCIDENT_SELECT }),
    prisma.incident.findMany({
      where: { resolvedAt: { gte: since } },
      orderBy: { resolvedAt: "desc" },
      take: 10,
      select: INCIDENT_SELECT,
    }),
  ]);
  // A condition that holds but that no incident records yet (the recorder runs after each tick) is shown too.
  const recorded = new Set(open.flatMap((o) => (o.key ? [o.key] : [])));
  const detected: IncidentView[] = conditions
    .filter((c) => !recorded.has(c.key))
    .map((c) => ({
      ref: null,
      source: "detected",
      severity: c.severity,
      subject: c.subject,
      title: c.title,
      openedAt: null,
      resolvedAt: null,
      notes: [{ at: iso6(now), body: c.detail }],
    }));
  return { ...view, incidents: [...open.map(incidentView), ...detected], resolved: resolved.map(incidentView) };
}
