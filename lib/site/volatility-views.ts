import "server-only";
import { resolveWindow } from "@/lib/data/window";
import { config } from "@/lib/config";
import {
  listVolatility,
  volatilityHistory,
  volatilityLatest,
  type HistoryPoint,
  type SeriesDefinition,
  type Tick,
  type VolatilityCatalogEntry,
} from "@/lib/data/volatility";
import { curlCommand } from "@/lib/site/api-call";
import { rangeRequest, type RangeKey } from "@/lib/site/range";
import { isoSecondsZ, parseApiTime } from "@/lib/site/time";
import { packVolatility, type PackedVolatilitySeries } from "@/lib/site/volatility-series";
import { shownTick } from "@/lib/site/volatility-value";
import type { ReadContext } from "@/lib/data/read-cache";

// Page-level reads through the same functions as /v1/volatility: the headline on a page is the
// catalog's and the latest envelope's value, never recomputed here.

/** Points the history chart asks for: the API's maximum `limit`, so 90 days of hourly ticks fit. */
export const HISTORY_LIMIT = 5000;

/** GET /v1/volatility, as the API returns it. */
export async function volatilityCatalogView(rc: ReadContext): Promise<VolatilityCatalogEntry[]> {
  return (await listVolatility(rc)).series;
}

export interface VolatilityPageView {
  series: SeriesDefinition;
  /** the value shown: the newest tick when published, else the newest published tick */
  shown: Tick;
  source: "tick" | "published";
  /** the newest computation, which may be withheld */
  newest: Tick;
  publicationState: string;
  range: RangeKey;
  requested: { start: string };
  served: { start: string; end: string; clamped: boolean };
  /** oldest first, published computations only (as the API's default) */
  points: HistoryPoint[];
  /** the same points packed for the chart and its table (what the browser receives) */
  packed: PackedVolatilitySeries;
  apiCall: { latest: string; history: string };
}

/** Everything /volatility/[slug] shows, or null when the API would answer 404 for it. */
export async function volatilityPageView(
  rc: ReadContext,
  slugOrTicker: string,
  range: RangeKey,
  now = new Date(),
): Promise<VolatilityPageView | null> {
  const latest = await volatilityLatest(rc, slugOrTicker, "tickerOrSlug");
  if (!latest) return null;
  const ticker = latest.series.ticker;
  const req = rangeRequest(now, range);
  // Same steps as GET /v1/volatility/{ticker}/history?start=...&limit=5000.
  const window = resolveWindow(now, req.start);
  const history = await volatilityHistory(rc, ticker, {
    start: window.start,
    end: window.end,
    limit: HISTORY_LIMIT,
    includeGated: false,
  });
  const { tick, source } = shownTick(latest);
  const start = isoSecondsZ(req.start);
  const base = config().baseUrl;
  const points = history ? [...history.points].reverse() : [];
  return {
    series: latest.series,
    shown: tick,
    source,
    newest: latest.tick,
    publicationState: latest.publicationState,
    range,
    requested: { start },
    served: { start: window.start.toISOString(), end: window.end.toISOString(), clamped: window.clamped },
    points,
    packed: packVolatility(points, (t) => parseApiTime(t).getTime()),
    apiCall: {
      latest: curlCommand(base, `/v1/volatility/${ticker}/latest`),
      history: curlCommand(base, `/v1/volatility/${ticker}/history`, { start, limit: HISTORY_LIMIT }),
    },
  };
}

/** The canonical slug for a slug or ticker typed in a URL, or null when not on the public surface. */
export async function volatilitySlug(rc: ReadContext, slugOrTicker: string): Promise<string | null> {
  const latest = await volatilityLatest(rc, slugOrTicker, "tickerOrSlug");
  return latest?.series.slug ?? null;
}
