import "server-only";
import { resolveWindow } from "@/lib/data/window";
import { config } from "@/lib/config";
import {
  indexHistory,
  indexLatest,
  indexLevelAsOf,
  indexReconstitutionsBetween,
  indexReconstitutionsWithVersions,
  listIndices,
  type IndexCatalogEntry,
  type IndexLatest,
  type LevelPoint,
  type ReconstitutionWithVersions,
} from "@/lib/data/indices";
import { curlCommand } from "@/lib/site/api-call";
import { changeDirection, changePct, formatPct } from "@/lib/site/change";
import { rangeRequest, type Interval, type RangeKey } from "@/lib/site/range";
import { isoSecondsZ, parseApiTime } from "@/lib/site/time";
import type { ReadContext } from "@/lib/data/read-cache";

// Page-level reads: every value comes from the same lib/data functions as /v1, so a level on a
// page is the string the API returns for the same index and window.

const DAY_MS = 86_400_000;
const RECONSTITUTIONS_SHOWN = 50;

export interface ChangeView {
  days: number;
  /** `+1.23%` or an em dash */
  text: string;
  direction: "up" | "down" | "flat" | "none";
  /** level the change is measured from, and when */
  fromLevel: string | null;
  fromT: string | null;
}

async function changeOver(rc: ReadContext, ticker: string, latest: IndexLatest, days: number): Promise<ChangeView> {
  const at = new Date(parseApiTime(latest.computedAt).getTime() - days * DAY_MS);
  const base = await indexLevelAsOf(rc, ticker, at);
  const pct = changePct(base?.indexLevel, latest.indexLevel);
  return {
    days,
    text: formatPct(pct),
    direction: changeDirection(pct),
    fromLevel: base?.indexLevel ?? null,
    fromT: base?.t ?? null,
  };
}

export interface IndexRowView {
  entry: IndexCatalogEntry;
  latest: IndexLatest | null;
  change1d: ChangeView | null;
  change30d: ChangeView | null;
}

/** The catalog (GET /v1/indices) with each index's latest level (GET .../latest) and its changes. */
export async function indexCatalogView(rc: ReadContext): Promise<IndexRowView[]> {
  const { indices } = await listIndices(rc);
  return Promise.all(
    indices.map(async (entry) => {
      const latest = await indexLatest(rc, entry.ticker);
      if (!latest) return { entry, latest: null, change1d: null, change30d: null };
      const [change1d, change30d] = await Promise.all([
        changeOver(rc, entry.ticker, latest, 1),
        changeOver(rc, entry.ticker, latest, 30),
      ]);
      return { entry, latest, change1d, change30d };
    }),
  );
}

export interface IndexPageView {
  latest: IndexLatest;
  change1d: ChangeView;
  change30d: ChangeView;
  range: RangeKey;
  interval: Interval;
  /** the window asked for (as in the API call) and the window served */
  requested: { start: string; end: string };
  served: { start: string; end: string; clamped: boolean };
  points: LevelPoint[];
  /** the newest reconstitutions (as many as the API call beside the table asks for) */
  reconstitutions: ReconstitutionWithVersions[];
  /** every reconstitution within the chart's window, however many */
  windowReconstitutions: ReconstitutionWithVersions[];
  /** reconstitutions since inception */
  reconstitutionCount: number;
  apiCall: { history: string; latest: string; reconstitutions: string };
}

/** Everything /indices/[ticker] shows, or null for a ticker the API answers 404. */
export async function indexPageView(
  rc: ReadContext,
  rawTicker: string,
  range: RangeKey,
  interval: Interval,
  now = new Date(),
): Promise<IndexPageView | null> {
  const latest = await indexLatest(rc, rawTicker);
  if (!latest) return null;
  const ticker = latest.ticker;
  // A ceased or resolved index has no new levels: its chart window ends at its last level, so it
  // opens on a range that shows them (an active index's window ends now).
  const anchor =
    latest.publicStatus === "active"
      ? now
      : new Date(Math.min(now.getTime(), parseApiTime(latest.computedAt).getTime() + 1000));
  const req = rangeRequest(anchor, range);
  // Same steps as GET /v1/indices/{ticker}/history with start and end.
  const window = resolveWindow(now, req.start, req.end);
  const [history, recon, inWindow, change1d, change30d] = await Promise.all([
    indexHistory(rc, ticker, { start: window.start, end: window.end, interval }),
    indexReconstitutionsWithVersions(rc, ticker, RECONSTITUTIONS_SHOWN),
    indexReconstitutionsBetween(rc, ticker, window.start, window.end),
    changeOver(rc, ticker, latest, 1),
    changeOver(rc, ticker, latest, 30),
  ]);
  const start = isoSecondsZ(req.start);
  const end = isoSecondsZ(req.end);
  const base = config().baseUrl;
  return {
    latest,
    change1d,
    change30d,
    range,
    interval,
    requested: { start, end },
    served: { start: window.start.toISOString(), end: window.end.toISOString(), clamped: window.clamped },
    points: window.empty || !history ? [] : history.points,
    reconstitutions: recon?.events ?? [],
    windowReconstitutions: inWindow?.events ?? [],
    reconstitutionCount: inWindow?.total ?? 0,
    apiCall: {
      history: curlCommand(base, `/v1/indices/${ticker}/history`, { interval, start, end }),
      latest: curlCommand(base, `/v1/indices/${ticker}/latest`),
      reconstitutions: curlCommand(base, `/v1/indices/${ticker}/reconstitutions`, { limit: RECONSTITUTIONS_SHOWN }),
    },
  };
}
