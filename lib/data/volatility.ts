import "server-only";
import { iso6, iso6NoZ } from "@/lib/time-format";
import { config } from "@/lib/config";
import { normalizeTicker } from "@/lib/data/indices";
import { keptFrozen, type ReadContext } from "@/lib/data/read-cache";
import { windowVersion } from "@/lib/data/window-version";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { z } from "zod";
import type {
  historyPoint,
  seriesDefinition,
  tick,
  volatilityCatalogEntry,
  volatilityLatest as volatilityLatestShape,
} from "@/lib/data/volatility-shapes";

const TTL = 2000;

const seriesSelect = {
  id: true,
  ticker: true,
  slug: true,
  name: true,
  description: true,
  category: true,
  productFamily: true,
  targetType: true,
  units: true,
  definitionLine: true,
  headlineTenorDays: true,
  tenorsDays: true,
  inceptionAt: true,
  settlementDate: true,
  listed: true,
  methodologyUrl: true,
  relatedIndexTickers: true,
  gates: true,
} as const;

type SeriesRow = Prisma.VolatilitySeriesGetPayload<{ select: typeof seriesSelect }>;

/** What a history point needs: no per-leg panel, no attribution. */
const historySelect = {
  computedAt: true,
  headlinePts: true,
  headlineTenorDays: true,
  tenors: true,
  bandLoPts: true,
  bandHiPts: true,
  attrDeltaHeadlinePts: true,
  effectiveN: true,
  fbvRPts: true,
  fbvRLabel: true,
  wTilde: true,
  status: true,
  publicationState: true,
  revision: true,
  gateFlags: true,
  counterfactual: true,
  labels: true,
  clockVersion: true,
  devigVersion: true,
  methodologyVersion: true,
  compositionVersion: true,
} as const;

/** A full tick: the history columns plus the panel and attribution. */
const tickSelect = {
  ...historySelect,
  attribution: true,
  budgetW: true,
  sumRaw: true,
  components: true,
} as const;

type TickRow = Prisma.VolatilityTickGetPayload<{ select: typeof tickSelect }>;
type HistoryRow = Prisma.VolatilityTickGetPayload<{ select: typeof historySelect }>;

export type SeriesDefinition = z.infer<typeof seriesDefinition>;

const definitions = new WeakMap<SeriesRow, SeriesDefinition>();

/** The public definition of a (memoized) series row, built once per row and frozen. */
function definition(row: SeriesRow): SeriesDefinition {
  let def = definitions.get(row);
  if (!def) {
    def = Object.freeze(toDefinition(row));
    definitions.set(row, def);
  }
  return def;
}

function toDefinition(row: SeriesRow): SeriesDefinition {
  return {
    ticker: row.ticker,
    slug: row.slug,
    name: row.name,
    description: row.description,
    category: row.category,
    productFamily: row.productFamily,
    targetType: row.targetType,
    units: row.units as SeriesDefinition["units"],
    definitionLine: row.definitionLine,
    headlineTenorDays: row.headlineTenorDays,
    tenorsDays: row.tenorsDays,
    inceptionAt: iso6(row.inceptionAt),
    settlementDate: row.settlementDate ? row.settlementDate.toISOString().slice(0, 10) : null,
    listed: row.listed,
    methodologyUrl: siteUrl(row.methodologyUrl),
    relatedIndexTickers: row.relatedIndexTickers,
    gates: row.gates as Record<string, number>,
  };
}

/** A stored path on this site (the demo's methodology link) is served against the public base URL. */
function siteUrl(stored: string): string {
  return stored.startsWith("/") ? `${config().baseUrl}${stored}` : stored;
}

export type Tick = z.infer<typeof tick>;

function toTick(series: SeriesRow, t: TickRow): Tick {
  return {
    seriesId: series.ticker,
    computedAt: iso6NoZ(t.computedAt),
    headlinePts: t.headlinePts,
    headlineTenorDays: t.headlineTenorDays,
    tenors: t.tenors as Tick["tenors"],
    bandLoPts: t.bandLoPts,
    bandHiPts: t.bandHiPts,
    attrDeltaHeadlinePts: t.attrDeltaHeadlinePts,
    attribution: t.attribution as Tick["attribution"],
    budgetW: t.budgetW,
    wTilde: t.wTilde,
    effectiveN: t.effectiveN,
    sumRaw: t.sumRaw,
    fbvRPts: t.fbvRPts,
    fbvRLabel: t.fbvRLabel,
    status: t.status as Tick["status"],
    publicationState: t.publicationState as Tick["publicationState"],
    revision: t.revision,
    gateFlags: t.gateFlags as Tick["gateFlags"],
    components: t.components as Tick["components"],
    counterfactual: t.counterfactual as Tick["counterfactual"],
    labels: t.labels as Tick["labels"],
    clockVersion: t.clockVersion,
    devigVersion: t.devigVersion,
    methodologyVersion: t.methodologyVersion,
    definitionLine: series.definitionLine,
    targetType: series.targetType,
    units: series.units,
  };
}

function toPoint(t: HistoryRow): HistoryPoint {
  const labels = t.labels as {
    clockHomogeneityDisclosure?: string;
    tier?: Record<string, string>;
    clockSpeed?: Record<string, number>;
    attrDeltaFrom?: string | null;
    attrDeltaFromPublished?: boolean | null;
  };
  const cf = t.counterfactual as { headlinePts?: number; anchorFingerprint?: string };
  const flags = t.gateFlags as Array<{ gate: string }>;
  return {
    t: iso6(t.computedAt),
    headlinePts: t.headlinePts,
    tenors: t.tenors as HistoryPoint["tenors"],
    tier: labels.tier?.[String(t.headlineTenorDays)] ?? null,
    bandLoPts: t.bandLoPts,
    bandHiPts: t.bandHiPts,
    attrDeltaHeadlinePts: t.attrDeltaHeadlinePts,
    // the delta is measured from the previous computation, published or withheld: say which
    attrDeltaFrom: labels.attrDeltaFrom ?? null,
    attrDeltaFromPublished: labels.attrDeltaFromPublished ?? null,
    clockSpeed: labels.clockSpeed ?? null,
    cfHeadlinePts: cf.headlinePts ?? null,
    anchorFingerprint: cf.anchorFingerprint ?? null,
    clockHomogeneityDisclosure: labels.clockHomogeneityDisclosure ?? null,
    clockVersion: t.clockVersion,
    compositionVersion: t.compositionVersion,
    devigVersion: t.devigVersion,
    methodologyVersion: t.methodologyVersion,
    effectiveN: t.effectiveN,
    fbvRLabel: t.fbvRLabel,
    fbvRPts: t.fbvRPts,
    wTilde: t.wTilde,
    gateNames: [...new Set(flags.map((f) => f.gate))],
    publicationState: t.publicationState as HistoryPoint["publicationState"],
    revision: t.revision,
    status: t.status as HistoryPoint["status"],
    units: "probability points",
  };
}

export type HistoryPoint = z.infer<typeof historyPoint>;

/** How a series is named: the API's paths take a ticker; the public pages also take the slug. */
export type SeriesLookup = "ticker" | "tickerOrSlug";

/** A listed series with at least one published tick, or null (the two are indistinguishable). */
async function findSeries(rc: ReadContext, ticker: string, lookup: SeriesLookup = "ticker"): Promise<SeriesRow | null> {
  const t = normalizeTicker(ticker);
  if (!t) return null;
  return rc.cache.memo(`series:${lookup}:${t}`, TTL, async () => {
    const prisma = await rc.db();
    const named = lookup === "ticker" ? [{ ticker: t }] : [{ ticker: t }, { slug: t.toLowerCase() }];
    const row = await prisma.volatilitySeries.findFirst({
      where: { OR: named, listed: true, ticks: { some: { publicationState: "published" } } },
      select: seriesSelect,
    });
    return row;
  });
}

export type VolatilityCatalogEntry = z.infer<typeof volatilityCatalogEntry>;

export interface VolatilityCatalog {
  count: number;
  series: VolatilityCatalogEntry[];
}

export function listVolatility(rc: ReadContext): Promise<VolatilityCatalog> {
  return rc.cache.memo("volatility", TTL, async () => {
    const prisma = await rc.db();
    const rows = await prisma.volatilitySeries.findMany({
      where: { listed: true },
      select: seriesSelect,
      orderBy: { ticker: "asc" },
    });
    const entries: VolatilityCatalogEntry[] = [];
    for (const row of rows) {
      const tick = await prisma.volatilityTick.findFirst({
        where: { seriesId: row.id, publicationState: "published" },
        orderBy: { computedAt: "desc" },
        select: { computedAt: true, status: true, publicationState: true, headlinePts: true, headlineTenorDays: true },
      });
      if (!tick) continue;
      entries.push({
        ...definition(row),
        lastComputedAt: iso6(tick.computedAt),
        status: tick.status as VolatilityCatalogEntry["status"],
        publicationState: tick.publicationState as VolatilityCatalogEntry["publicationState"],
        headlinePts: tick.headlinePts,
        headlineTenorDays: tick.headlineTenorDays,
      });
    }
    return Object.freeze({ count: entries.length, series: entries });
  });
}

export type VolatilityLatest = z.infer<typeof volatilityLatestShape>;

/** The series' latest computation; `lookup` "tickerOrSlug" is for the public pages only. */
export async function volatilityLatest(
  rc: ReadContext,
  ticker: string,
  lookup: SeriesLookup = "ticker",
): Promise<VolatilityLatest | null> {
  const series = await findSeries(rc, ticker, lookup);
  return series ? latestTickOf(rc, series) : null;
}

function latestTickOf(rc: ReadContext, series: SeriesRow): Promise<VolatilityLatest | null> {
  return rc.cache.memo(`vol-latest:${series.id}`, TTL, async () => {
    const prisma = await rc.db();
    const newest = await prisma.volatilityTick.findFirst({
      where: { seriesId: series.id },
      orderBy: { computedAt: "desc" },
      select: tickSelect,
    });
    if (!newest) return null;
    const published =
      newest.publicationState === "published"
        ? null
        : await prisma.volatilityTick.findFirst({
            where: { seriesId: series.id, publicationState: "published" },
            orderBy: { computedAt: "desc" },
            select: tickSelect,
          });
    return Object.freeze({
      series: definition(series),
      tick: toTick(series, newest),
      publicationState: newest.publicationState as VolatilityLatest["publicationState"],
      published: published ? toTick(series, published) : null,
    });
  });
}

const HISTORY_SPAN_MS = 91 * 86_400_000;

interface TimedPoint {
  ms: number;
  point: HistoryPoint;
}

interface RecentPoints {
  from: number;
  /** Newest first. */
  points: TimedPoint[];
  /** Served selections by bounds and filters, frozen: the same request gets the same array (and JSON). */
  selections: Map<string, HistoryPoint[]>;
}

/** The trailing window's points, newest first, formatted once per TTL (no per-leg panel loaded). */
function recentPoints(rc: ReadContext, seriesId: string): Promise<RecentPoints> {
  const from = Date.now() - HISTORY_SPAN_MS;
  return rc.cache.versioned(
    `vol-history:${seriesId}`,
    TTL,
    async () => windowVersion(await rc.db(), "volatility_ticks", seriesId, new Date(from)),
    async () => ({ from, points: await loadPoints(rc, seriesId, new Date(from)), selections: new Map() }),
  );
}

async function loadPoints(rc: ReadContext, seriesId: string, start: Date): Promise<TimedPoint[]> {
  const prisma = await rc.db();
  const rows = await prisma.volatilityTick.findMany({
    where: { seriesId, computedAt: { gte: start } },
    orderBy: { computedAt: "desc" },
    select: historySelect,
  });
  return rows.map((r) => ({ ms: r.computedAt.getTime(), point: Object.freeze(toPoint(r)) }));
}

/** First position in a newest-first list whose time is at or before `ms`. */
function firstAtOrBefore(points: TimedPoint[], ms: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.ms > ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Points in the half-open window [startMs, endMs), newest first, at most `limit`, gated ones only when asked. */
function select(
  source: TimedPoint[],
  startMs: number,
  endMs: number,
  limit: number,
  includeGated: boolean,
): HistoryPoint[] {
  const points: HistoryPoint[] = [];
  for (let i = firstAtOrBefore(source, endMs - 1); i < source.length && points.length < limit; i++) {
    const p = source[i]!;
    if (p.ms < startMs) break;
    if (!includeGated && p.point.publicationState !== "published") continue;
    points.push(p.point);
  }
  return points;
}

export async function volatilityHistory(
  rc: ReadContext,
  ticker: string,
  query: { start: Date; end: Date; limit: number; includeGated: boolean },
): Promise<{ series: SeriesDefinition; points: HistoryPoint[] } | null> {
  const series = await findSeries(rc, ticker);
  if (!series) return null;
  const startMs = query.start.getTime();
  const endMs = query.end.getTime();
  const recent = await recentPoints(rc, series.id);
  if (startMs < recent.from) {
    return {
      series: definition(series),
      points: select(await loadPoints(rc, series.id, query.start), startMs, endMs, query.limit, query.includeGated),
    };
  }
  // Bounds as positions: every request between the same two ticks selects the same points.
  const key = `${firstAtOrBefore(recent.points, endMs - 1)}:${firstAtOrBefore(recent.points, startMs - 1)}:${query.limit}:${query.includeGated}`;
  const points = keptFrozen(recent.selections, key, () =>
    select(recent.points, startMs, endMs, query.limit, query.includeGated),
  );
  return { series: definition(series), points };
}

/** Series for the public pages, by slug (listed only). */
export async function seriesSlugToTicker(rc: ReadContext, slug: string): Promise<string | null> {
  const s = await findSeries(rc, slug, "tickerOrSlug");
  return s?.ticker ?? null;
}
