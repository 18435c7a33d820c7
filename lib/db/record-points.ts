import type { Db } from "@/lib/db";
import type { RecordPoint } from "@/lib/engine/volatility/forecast-record";

/** A series' computations as the forecast record reads them (tickers of listed series). */
export interface SeriesRecordPoints {
  ticker: string;
  tenorsDays: number[];
  points: RecordPoint[];
}

/**
 * The computations of listed series in [from, to) as the forecast record reads them: publication,
 * each tenor's published points, each quoted leg's de-vigged p (as the leg panel prints it). With
 * `ticker`, that series only.
 */
export async function loadRecordPoints(
  prisma: Db,
  from: Date,
  to: Date,
  ticker?: string,
): Promise<SeriesRecordPoints[]> {
  const series = await prisma.volatilitySeries.findMany({
    where: { listed: true, ...(ticker === undefined ? {} : { ticker }) },
    orderBy: { ticker: "asc" },
    select: { id: true, ticker: true, tenorsDays: true },
  });
  if (series.length === 0) return [];
  const rows = await prisma.$queryRaw<
    Array<{
      sid: string;
      t: Date;
      pub: string;
      pts: Record<string, number> | null;
      legs: Array<[string, number | null]> | null;
    }>
  >`
    SELECT v."seriesId"::text AS sid, v."computedAt" AS t, v."publicationState" AS pub,
      (SELECT jsonb_object_agg(k, x->'pts') FROM jsonb_each(v.tenors) AS e(k, x)) AS pts,
      (SELECT jsonb_agg(jsonb_build_array(l->>'conditionId', l->'p')) FROM jsonb_array_elements(v.inputs->'legs') AS l) AS legs
    FROM volatility_ticks v
    WHERE v."seriesId"::text = ANY(${series.map((s) => s.id)}) AND v."computedAt" >= ${from} AND v."computedAt" < ${to}
    ORDER BY v."computedAt"`;
  const bySeries = new Map(series.map((s) => [s.id, [] as RecordPoint[]]));
  for (const r of rows) {
    const p = new Map<string, number>();
    for (const [id, pj] of r.legs ?? []) if (typeof pj === "number") p.set(id, pj);
    bySeries.get(r.sid)?.push({ ms: r.t.getTime(), published: r.pub === "published", tenorPts: r.pts ?? {}, p });
  }
  return series.map((s) => ({ ticker: s.ticker, tenorsDays: s.tenorsDays, points: bySeries.get(s.id) ?? [] }));
}
