import type { IndexCatalogEntry, IndexLatest, LevelPoint, ReconstitutionEvent } from "@/lib/data/indices";
import type {
  HistoryPoint,
  SeriesDefinition,
  Tick,
  VolatilityCatalogEntry,
  VolatilityLatest,
} from "@/lib/data/volatility";

/** A success body as the API returns it. */
export interface Envelope<D = unknown> {
  data: D;
  meta: Record<string, unknown>;
}

/**
 * Short text renderings of tool results, for people and for clients that show text only. The
 * exact values are in structuredContent; a volatility value is never quoted without its tenor
 * and its series' definition line, and every rendering ends with the attribution.
 */
export type Renderer<D> = (envelope: Envelope<D>) => string;

/** "12.34 pts over 30 days — <definition line>" */
export function quoteVolatility(pts: number, tenorDays: number, definitionLine: string): string {
  return `${pts.toFixed(2)} pts over ${tenorDays} days — ${definitionLine}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function withAttribution(text: string, meta: Record<string, unknown>): string {
  return typeof meta.attribution === "string" ? `${text}\n${meta.attribution}` : text;
}

const indexFlags = (e: { publicStatus: string; stale: boolean }) =>
  [e.publicStatus !== "active" ? e.publicStatus : null, e.stale ? "stale" : null].filter(Boolean).join(", ");

export const renderIndices: Renderer<{ count: number; indices: IndexCatalogEntry[] }> = ({ data, meta }) => {
  if (data.count === 0) return withAttribution("No indices are listed.", meta);
  const lines = data.indices.map((i) => {
    const flags = indexFlags(i);
    return `- ${i.ticker}: ${i.name}${flags ? ` (${flags})` : ""}`;
  });
  return withAttribution(`${plural(data.count, "index", "indices")}:\n${lines.join("\n")}`, meta);
};

export const renderIndexLatest: Renderer<IndexLatest> = ({ data: d, meta }) => {
  const flags = indexFlags(d);
  return withAttribution(
    `${d.ticker} (${d.name}): ${d.indexLevel} at ${d.computedAt}, base ${d.baseIndexLevel} at inception ${d.inceptionAt}; revision ${d.revision}${flags ? `, ${flags}` : ""}.`,
    meta,
  );
};

export const renderIndexHistory: Renderer<{
  ticker: string;
  interval: string;
  count: number;
  points: LevelPoint[];
}> = ({ data, meta }) => {
  const clamped =
    meta.clamped === true ? ` The requested start was clamped to the ${String(meta.historyMaxDays)}-day window.` : "";
  const first = data.points[0];
  const last = data.points.at(-1);
  const body =
    first && last
      ? `${data.ticker}: ${plural(data.count, `${data.interval} level`)}, oldest first, from ${first.indexLevel} at ${first.t} to ${last.indexLevel} at ${last.t}.`
      : `${data.ticker}: no ${data.interval} levels in the requested window.`;
  return withAttribution(body + clamped, meta);
};

export const renderReconstitutions: Renderer<{ ticker: string; count: number; events: ReconstitutionEvent[] }> = ({
  data,
  meta,
}) => {
  const latest = data.events[0];
  const body = latest
    ? `${data.ticker}: ${plural(data.count, "reconstitution")}, newest first; the latest completed at ${latest.completedAt} and added ${plural(latest.addedMarketCount, "market")}.`
    : `${data.ticker}: no reconstitutions.`;
  return withAttribution(body, meta);
};

export const renderVolatilityCatalog: Renderer<{ count: number; series: VolatilityCatalogEntry[] }> = ({
  data,
  meta,
}) => {
  if (data.count === 0) return withAttribution("No volatility series are published.", meta);
  const lines = data.series.map(
    (s) =>
      `- ${s.ticker}: ${quoteVolatility(s.headlinePts, s.headlineTenorDays, s.definitionLine)} (${s.status}, at ${s.lastComputedAt})`,
  );
  return withAttribution(
    `${plural(data.count, "volatility series", "volatility series")}, latest published values:\n${lines.join("\n")}`,
    meta,
  );
};

function tickLine(series: SeriesDefinition, tick: Tick): string {
  const flags = tick.gateFlags.map((f) => f.publicDetail).filter(Boolean);
  const status = tick.status === "flagged" && flags.length ? `flagged: ${flags.join("; ")}` : tick.status;
  return `${quoteVolatility(tick.headlinePts, tick.headlineTenorDays, series.definitionLine)} (computed ${tick.computedAt} UTC, ${status})`;
}

export const renderVolatilityLatest: Renderer<VolatilityLatest> = ({ data, meta }) => {
  const { series, tick, published } = data;
  const body =
    published === null
      ? `${series.ticker}: ${tickLine(series, tick)}.`
      : `${series.ticker}: latest published ${tickLine(series, published)}. The newest computation, at ${tick.computedAt} UTC, was not published (${tick.status}, ${tick.publicationState}).`;
  return withAttribution(body, meta);
};

export const renderVolatilityHistory: Renderer<{
  count: number;
  points: HistoryPoint[];
  series: SeriesDefinition;
  windowStart: string;
}> = ({ data, meta }) => {
  const newest = data.points[0];
  const clamped =
    meta.clamped === true ? ` The requested start was clamped to the ${String(meta.historyMaxDays)}-day window.` : "";
  const body = newest
    ? `${data.series.ticker}: ${plural(data.count, "point")} since ${data.windowStart}, newest first; newest ${quoteVolatility(newest.headlinePts, data.series.headlineTenorDays, data.series.definitionLine)} (at ${newest.t}, ${newest.publicationState}).`
    : `${data.series.ticker}: no points since ${data.windowStart}.`;
  return withAttribution(body + clamped, meta);
};

export const renderDownloads: Renderer<{ downloadsUrl: string; latestManifestUrl: string; license: string }> = ({
  data,
  meta,
}) =>
  withAttribution(
    `Snapshot bundles: ${data.downloadsUrl} (start automation from ${data.latestManifestUrl}). ${data.license}`,
    meta,
  );

export const renderQuota: Renderer<{
  key: { prefix: string; limitMinute: number; limitDay: number; remainingMinute: number; remainingDay: number };
}> = ({ data }) => {
  const k = data.key;
  return `Key ${k.prefix}…: ${k.remainingMinute} of ${k.limitMinute} requests left this minute, ${k.remainingDay} of ${k.limitDay} in the last 24 hours (this call counted as one).`;
};
