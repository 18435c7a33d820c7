import "server-only";
import type { z } from "zod";
import type {
  catalogEntry,
  latestLevel as latestShape,
  levelPoint,
  publicStatus as publicStatusShape,
  reconstitution,
} from "@/lib/data/shapes";
import { iso6, isoOrNull } from "@/lib/time-format";
import { keptFrozen, type ReadContext } from "@/lib/data/read-cache";
import { windowVersion } from "@/lib/data/window-version";
import type { Interval } from "@/lib/data/window";

const TTL = 2000;
export const BASE_LEVEL = "100.00000000";

export type PublicStatus = z.infer<typeof publicStatusShape>;

interface IndexRow {
  id: string;
  ticker: string;
  name: string;
  description: string;
  theme: string;
  inceptionAt: Date;
  ceasedAt: Date | null;
  resolvedAt: Date | null;
  maturityType: string;
  methodologyVersion: string;
  seriesPartiallyResolved: boolean;
}

const indexSelect = {
  id: true,
  ticker: true,
  name: true,
  description: true,
  theme: true,
  inceptionAt: true,
  ceasedAt: true,
  resolvedAt: true,
  maturityType: true,
  methodologyVersion: true,
  seriesPartiallyResolved: true,
} as const;

export function publicStatus(row: { ceasedAt: Date | null; resolvedAt: Date | null }): PublicStatus {
  if (row.resolvedAt) return "resolved";
  if (row.ceasedAt) return "ceased";
  return "active";
}

/** Ticker as typed in a path: case-insensitive, and nothing odd reaches the database. */
export function normalizeTicker(raw: string): string | null {
  const t = decodeURIComponentSafe(raw).trim().toUpperCase();
  return /^[A-Z0-9][A-Z0-9._-]{0,63}$/.test(t) ? t : null;
}

function decodeURIComponentSafe(s: string): string {
  if (!s.includes("%")) return s; // nothing to decode: the common case, without the decoder's cost
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

async function findIndex(rc: ReadContext, ticker: string): Promise<IndexRow | null> {
  const t = normalizeTicker(ticker);
  if (!t) return null;
  return rc.cache.memo(`index:${t}`, TTL, async () => {
    const prisma = await rc.db();
    return prisma.index.findFirst({ where: { ticker: t, listed: true }, select: indexSelect });
  });
}

async function latestLevel(rc: ReadContext, indexId: string) {
  const prisma = await rc.db();
  return prisma.indexLevel.findFirst({
    where: { indexId },
    orderBy: { t: "desc" },
    select: {
      t: true,
      level: true,
      revision: true,
      stale: true,
      compositionVersion: true,
      freshMarketsCount: true,
      staleMarketsCount: true,
      totalMarketsCount: true,
    },
  });
}

export type IndexCatalogEntry = z.infer<typeof catalogEntry>;

export interface IndexCatalog {
  count: number;
  indices: IndexCatalogEntry[];
}

export function listIndices(rc: ReadContext): Promise<IndexCatalog> {
  return rc.cache.memo("indices", TTL, async () => {
    const prisma = await rc.db();
    const rows = await prisma.index.findMany({
      where: { listed: true },
      select: indexSelect,
      orderBy: { ticker: "asc" },
    });
    const indices = await Promise.all(
      rows.map(async (row) => {
        const level = await latestLevel(rc, row.id);
        return {
          ticker: row.ticker,
          name: row.name,
          publicStatus: publicStatus(row),
          lastComputedAt: level ? iso6(level.t) : null,
          stale: level?.stale ?? false,
          ceasedAt: isoOrNull(row.ceasedAt),
          resolvedAt: isoOrNull(row.resolvedAt),
        };
      }),
    );
    return Object.freeze({ count: indices.length, indices });
  });
}

export type IndexLatest = z.infer<typeof latestShape>;

/** The latest level object, or null for an unknown ticker or an index with no level yet. */
export async function indexLatest(rc: ReadContext, ticker: string): Promise<IndexLatest | null> {
  const row = await findIndex(rc, ticker);
  return row ? latestOf(rc, row) : null;
}

function latestOf(rc: ReadContext, row: IndexRow): Promise<IndexLatest | null> {
  return rc.cache.memo(`index-latest:${row.id}`, TTL, async () => {
    const level = await latestLevel(rc, row.id);
    if (!level) return null;
    const total = level.totalMarketsCount;
    return Object.freeze({
      ticker: row.ticker,
      name: row.name,
      indexLevel: level.level.toFixed(8),
      baseIndexLevel: BASE_LEVEL,
      computedAt: iso6(level.t),
      inceptionAt: iso6(row.inceptionAt),
      ceasedAt: isoOrNull(row.ceasedAt),
      resolvedAt: isoOrNull(row.resolvedAt),
      stale: level.stale,
      publicStatus: publicStatus(row),
      maturityType: row.maturityType as IndexLatest["maturityType"], // the catalog schema allows only these (lib/catalog/schema.ts)
      methodologyVersion: row.methodologyVersion,
      compositionVersion: level.compositionVersion,
      revision: level.revision,
      seriesFullyResolved: row.resolvedAt !== null,
      seriesPartiallyResolved: row.seriesPartiallyResolved && row.resolvedAt === null,
      dataQuality: {
        freshDataPct: total ? Math.round((level.freshMarketsCount / total) * 10000) / 100 : 0,
        freshMarketsCount: level.freshMarketsCount,
        staleMarketsCount: level.staleMarketsCount,
        totalMarketsCount: total,
      },
    });
  });
}

export type LevelPoint = z.infer<typeof levelPoint>;

/** A formatted level and its time, for the binary search over the window. */
interface TimedPoint {
  ms: number;
  point: LevelPoint;
}

const SERIES_SPAN_MS = 91 * 86_400_000;

interface RecentLevels {
  from: number;
  points: TimedPoint[];
  /** Served slices by bounds, frozen: the same request window gets the same array (and JSON). */
  slices: Map<string, LevelPoint[]>;
}

/** Every point of the trailing window, formatted once per TTL; requests slice it. */
function recentLevels(rc: ReadContext, indexId: string, interval: Interval): Promise<RecentLevels> {
  const from = Date.now() - SERIES_SPAN_MS;
  return rc.cache.versioned(
    `levels:${indexId}:${interval}`,
    TTL,
    async () => windowVersion(await rc.db(), "index_levels", indexId, new Date(from)),
    async () => ({
      from,
      points: await loadLevels(rc, indexId, interval, new Date(from), new Date(Date.now() + 86_400_000)),
      slices: new Map(),
    }),
  );
}

/** Points in the half-open window [startMs, endMs). */
function slice(recent: RecentLevels, startMs: number, endMs: number): LevelPoint[] {
  const lo = lowerBound(recent.points, startMs);
  const hi = lowerBound(recent.points, endMs);
  return keptFrozen(recent.slices, `${lo}:${hi}`, () => recent.points.slice(lo, hi).map((p) => p.point));
}

async function loadLevels(
  rc: ReadContext,
  indexId: string,
  interval: Interval,
  start: Date,
  end: Date,
): Promise<TimedPoint[]> {
  const prisma = await rc.db();
  const rows =
    interval === "1h"
      ? await prisma.$queryRaw<Array<{ t: Date; level: string; revision: number; stale: boolean }>>`
          SELECT t, level::text AS level, revision, stale FROM index_levels
          WHERE "indexId" = ${indexId}::uuid AND t >= ${start} AND t < ${end} ORDER BY t ASC`
      : await prisma.$queryRaw<Array<{ t: Date; level: string; revision: number; stale: boolean }>>`
          SELECT t, level::text AS level, revision, stale FROM index_levels
          WHERE "indexId" = ${indexId}::uuid AND t >= ${start} AND t < ${end}
            AND t = date_trunc('day', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
          ORDER BY t ASC`;
  return rows.map((p) => ({
    ms: p.t.getTime(),
    point: Object.freeze({ t: iso6(p.t), indexLevel: fixed8(p.level), revision: p.revision, stale: p.stale }),
  }));
}

function lowerBound(points: TimedPoint[], ms: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.ms < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Levels in the half-open window [start, end), oldest first, so back-to-back windows never count
 * a boundary hour twice; `1d` takes the 00:00 UTC fixing of each day.
 */
export async function indexHistory(
  rc: ReadContext,
  ticker: string,
  window: { start: Date; end: Date; interval: Interval },
): Promise<{ ticker: string; points: LevelPoint[] } | null> {
  const row = await findIndex(rc, ticker);
  if (!row) return null;
  if (window.end <= window.start) return { ticker: row.ticker, points: [] };
  const recent = await recentLevels(rc, row.id, window.interval);
  const points =
    window.start.getTime() >= recent.from
      ? slice(recent, window.start.getTime(), window.end.getTime())
      : (await loadLevels(rc, row.id, window.interval, window.start, window.end)).map((p) => p.point);
  return { ticker: row.ticker, points };
}

function fixed8(s: string): string {
  const [int, frac = ""] = s.split(".");
  return `${int}.${frac.padEnd(8, "0").slice(0, 8)}`;
}

export type ReconstitutionEvent = z.infer<typeof reconstitution>;

export async function indexReconstitutions(
  rc: ReadContext,
  ticker: string,
  limit: number,
): Promise<{ ticker: string; events: ReconstitutionEvent[] } | null> {
  const result = await indexReconstitutionsWithVersions(rc, ticker, limit);
  return (
    result && {
      ticker: result.ticker,
      events: result.events.map(({ eventId, completedAt, addedMarketCount }) => ({
        eventId,
        completedAt,
        addedMarketCount,
      })),
    }
  );
}

/** The latest level at or before `at` (for changes over a period on the public pages). */
export async function indexLevelAsOf(
  rc: ReadContext,
  ticker: string,
  at: Date,
): Promise<{ t: string; indexLevel: string } | null> {
  const row = await findIndex(rc, ticker);
  if (!row) return null;
  return rc.cache.memo(`index-asof:${row.id}:${at.getTime()}`, TTL, async () => {
    const prisma = await rc.db();
    const level = await prisma.indexLevel.findFirst({
      where: { indexId: row.id, t: { lte: at } },
      orderBy: { t: "desc" },
      select: { t: true, level: true },
    });
    return level ? { t: iso6(level.t), indexLevel: level.level.toFixed(8) } : null;
  });
}

export interface ReconstitutionWithVersions extends ReconstitutionEvent {
  fromVersion: string;
  toVersion: string;
}

/** Reconstitution events as on the API, newest first, with the composition versions they link. */
export async function indexReconstitutionsWithVersions(
  rc: ReadContext,
  ticker: string,
  limit: number,
): Promise<{ ticker: string; events: ReconstitutionWithVersions[] } | null> {
  const row = await findIndex(rc, ticker);
  if (!row) return null;
  const prisma = await rc.db();
  const events = await prisma.reconstitutionEvent.findMany({
    where: { indexId: row.id },
    orderBy: { completedAt: "desc" },
    take: limit,
    select: { id: true, completedAt: true, addedMarketCount: true, fromVersion: true, toVersion: true },
  });
  return {
    ticker: row.ticker,
    events: events.map((e) => ({
      eventId: e.id,
      completedAt: iso6(e.completedAt),
      addedMarketCount: e.addedMarketCount,
      fromVersion: e.fromVersion,
      toVersion: e.toVersion,
    })),
  };
}

/**
 * Every reconstitution of an index completed in [from, to], newest first, with no count limit
 * (the pages mark all of a chart's window; the API's `limit` bounds a response, not a page),
 * and the number the index has had since inception.
 */
export async function indexReconstitutionsBetween(
  rc: ReadContext,
  ticker: string,
  from: Date,
  to: Date,
): Promise<{ events: ReconstitutionWithVersions[]; total: number } | null> {
  const row = await findIndex(rc, ticker);
  if (!row) return null;
  const prisma = await rc.db();
  const [events, total] = await Promise.all([
    prisma.reconstitutionEvent.findMany({
      where: { indexId: row.id, completedAt: { gte: from, lte: to } },
      orderBy: { completedAt: "desc" },
      select: { id: true, completedAt: true, addedMarketCount: true, fromVersion: true, toVersion: true },
    }),
    prisma.reconstitutionEvent.count({ where: { indexId: row.id } }),
  ]);
  return {
    total,
    events: events.map((e) => ({
      eventId: e.id,
      completedAt: iso6(e.completedAt),
      addedMarketCount: e.addedMarketCount,
      fromVersion: e.fromVersion,
      toVersion: e.toVersion,
    })),
  };
}
