import type { VenueHttp } from "./http";
import { VenueError } from "./http";
import { EVENTS_PAGE, POLY_ENDPOINTS } from "./polymarket";
import { arr, bool, isObj, str, type Obj } from "./read";
import { gammaEventsPage } from "./schemas";
import type { VenueName } from "./types";

// Finding what to put in a catalog: Polymarket tags and events from Gamma's `/public-search`,
// Kalshi series from `/series` (the venue has no text search: the words are matched against each
// series' ticker, title, category and tags) with their open events from `/events`. Every list is
// read within a page cap, so a search costs a bounded number of requests.

export type SearchKind = "tag" | "event" | "series";

export interface SearchRow {
  venue: VenueName;
  kind: SearchKind;
  /** the value for the catalog: a tag slug, event slug, series ticker or event ticker */
  selector: string;
  title: string;
  /** open: has open markets; closed; or "no open markets" for a tag or series */
  status: string;
  /** YYYY-MM-DD: an event's close; for a tag or series, the next close among its open markets */
  closes: string | null;
  /** open markets (null: the venue's answer did not list them); `capped` when the page cap stopped the count */
  markets: number | null;
  capped: boolean;
  /** a Polymarket neg-risk or Kalshi mutually exclusive event: it can be a volatility series' event */
  exclusive: boolean;
}

export interface SearchOptions {
  /** rows per venue and kind */
  limit: number;
  /** pages read per list */
  maxPages: number;
}

export const SEARCH_DEFAULTS: SearchOptions = { limit: 10, maxPages: 5 };

const GAMMA_EVENTS_PAGE = EVENTS_PAGE;
const KALSHI_EVENTS_PAGE = 200;

const day = (v: unknown): string | null => {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 10);
};
const earliest = (dates: Array<string | null>) => dates.filter((d): d is string => d !== null).sort()[0] ?? null;
const latest = (dates: Array<string | null>) =>
  dates
    .filter((d): d is string => d !== null)
    .sort()
    .at(-1) ?? null;
const objects = (o: Obj, key: string): Obj[] => (arr(o, key) ?? []).filter(isObj);

/** Polymarket: an event's open markets (Gamma may keep closed ones in an event). */
const openGammaMarkets = (e: Obj) => objects(e, "markets").filter((m) => bool(m, "closed") !== true);

function gammaEventRow(e: Obj): SearchRow | null {
  const slug = str(e, "slug");
  if (!slug) return null;
  const open = openGammaMarkets(e);
  const listed = arr(e, "markets") !== null;
  const closed = bool(e, "closed") === true;
  return {
    venue: "polymarket",
    kind: "event",
    selector: slug,
    title: str(e, "title") ?? slug,
    status: closed ? "closed" : !listed || open.length > 0 ? "open" : "no open markets",
    closes: day(e.endDate) ?? latest(open.map((m) => day(m.endDate))),
    markets: listed ? open.length : null,
    capped: false,
    exclusive: bool(e, "negRisk") === true,
  };
}

/** Tags and events matching the words, each tag with its open events counted within the page cap. */
export async function searchPolymarket(
  http: VenueHttp,
  gammaUrl: string,
  words: string,
  options: SearchOptions = SEARCH_DEFAULTS,
): Promise<SearchRow[]> {
  const events: SearchRow[] = [];
  const tags: Array<{ slug: string; title: string }> = [];
  for (
    let page = 1;
    page <= options.maxPages && (events.length < options.limit || tags.length < options.limit);
    page++
  ) {
    const body = await http.getJson(
      `${gammaUrl}/public-search?q=${encodeURIComponent(words)}&events_status=active&keep_closed_markets=0&search_tags=true&search_profiles=false&limit_per_type=${options.limit}&page=${page}`,
    );
    if (!isObj(body)) throw new VenueError("gamma /public-search", "not a search result");
    for (const e of objects(body, "events")) {
      const row = gammaEventRow(e);
      if (row && events.length < options.limit && !events.some((x) => x.selector === row.selector)) events.push(row);
    }
    for (const t of objects(body, "tags")) {
      const slug = str(t, "slug");
      if (slug && tags.length < options.limit && !tags.some((x) => x.slug === slug))
        tags.push({ slug, title: str(t, "label") ?? slug });
    }
    if (!(isObj(body.pagination) && bool(body.pagination, "hasMore") === true)) break;
  }
  const tagRows = await Promise.all(tags.map((t) => polymarketTagRow(http, gammaUrl, t, options)));
  return [...tagRows, ...events];
}

async function polymarketTagRow(
  http: VenueHttp,
  gammaUrl: string,
  tag: { slug: string; title: string },
  options: SearchOptions,
): Promise<SearchRow> {
  let markets = 0;
  let capped = false;
  const closes: Array<string | null> = [];
  // `/events/keyset` (the offset list was sunset on 2026-05-01: see lib/venues/polymarket.ts), `after_cursor` from `next_cursor`
  const seen = new Set<string>();
  for (let page = 0, cursor: string | null = null; ; page++) {
    if (page === options.maxPages) {
      capped = true;
      break;
    }
    const url: string = `${gammaUrl}/events/keyset?tag_slug=${encodeURIComponent(tag.slug)}&closed=false&limit=${GAMMA_EVENTS_PAGE}${cursor === null ? "" : `&after_cursor=${encodeURIComponent(cursor)}`}`;
    const body = await http.read(url, gammaEventsPage, { endpoint: POLY_ENDPOINTS.eventsKeyset });
    for (const e of body.events as Obj[]) {
      const open = openGammaMarkets(e);
      markets += open.length;
      closes.push(...open.map((m) => day(m.endDate) ?? day(e.endDate)));
    }
    cursor = body.next_cursor ?? null;
    if (cursor === null || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return {
    venue: "polymarket",
    kind: "tag",
    selector: tag.slug,
    title: tag.title,
    status: markets > 0 ? "open" : "no open markets",
    closes: earliest(closes),
    markets,
    capped,
    exclusive: false,
  };
}

const matches = (text: string, words: string[]) => words.every((w) => text.toLowerCase().includes(w));
const isOpenKalshi = (m: Obj) => ["active", "open"].includes(str(m, "status") ?? "");

/** Series whose ticker, title, category or tags hold every word, each with its open events. */
export async function searchKalshi(
  http: VenueHttp,
  apiUrl: string,
  words: string,
  options: SearchOptions = SEARCH_DEFAULTS,
): Promise<SearchRow[]> {
  const ws = words.toLowerCase().split(/\s+/).filter(Boolean);
  const series: Obj[] = [];
  let cursor = "";
  for (let page = 0; page < options.maxPages && series.length < options.limit; page++) {
    const body = await http.getJson(`${apiUrl}/series${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (!isObj(body) || arr(body, "series") === null) throw new VenueError("kalshi /series", "no series list");
    for (const s of objects(body, "series")) {
      const text = [
        str(s, "ticker"),
        str(s, "title"),
        str(s, "category"),
        ...(arr(s, "tags") ?? []).filter((t): t is string => typeof t === "string"),
      ].join(" ");
      if (str(s, "ticker") && matches(text, ws) && series.length < options.limit) series.push(s);
    }
    cursor = str(body, "cursor") ?? "";
    if (!cursor) break;
  }
  const groups = await Promise.all(series.map((s) => kalshiSeriesRows(http, apiUrl, s, options)));
  return groups.flat();
}

async function kalshiSeriesRows(http: VenueHttp, apiUrl: string, s: Obj, options: SearchOptions): Promise<SearchRow[]> {
  const ticker = str(s, "ticker")!;
  const events: SearchRow[] = [];
  let markets = 0;
  let capped = false;
  const closes: Array<string | null> = [];
  let cursor = "";
  for (let page = 0; ; page++) {
    if (page === options.maxPages) {
      capped = true;
      break;
    }
    const body = await http.getJson(
      `${apiUrl}/events?series_ticker=${encodeURIComponent(ticker)}&status=open&with_nested_markets=true&limit=${KALSHI_EVENTS_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    if (!isObj(body) || arr(body, "events") === null) throw new VenueError("kalshi /events", "no events list");
    for (const e of objects(body, "events")) {
      const open = objects(e, "markets").filter(isOpenKalshi);
      const eventTicker = str(e, "event_ticker");
      markets += open.length;
      closes.push(...open.map((m) => day(m.close_time)));
      if (!eventTicker || events.length >= options.limit) continue;
      events.push({
        venue: "kalshi",
        kind: "event",
        selector: eventTicker,
        title: [str(e, "title"), str(e, "sub_title")].filter(Boolean).join(" ") || eventTicker,
        status: open.length > 0 ? "open" : "closed",
        closes: latest(open.map((m) => day(m.close_time))),
        markets: open.length,
        capped: false,
        exclusive: bool(e, "mutually_exclusive") === true,
      });
    }
    cursor = str(body, "cursor") ?? "";
    if (!cursor) break;
  }
  const row: SearchRow = {
    venue: "kalshi",
    kind: "series",
    selector: ticker,
    title: str(s, "title") ?? ticker,
    status: markets > 0 ? "open" : "no open markets",
    closes: earliest(closes),
    markets,
    capped,
    exclusive: false,
  };
  return [row, ...events];
}

export interface VenueSearch {
  venue: VenueName;
  rows: SearchRow[];
  /** one line when the venue could not be searched */
  problem: string | null;
}

/** Searches each venue given; a venue that fails is reported on its own, never failing the others. */
export async function searchVenues(
  words: string,
  venues: { polymarket?: { http: VenueHttp; gammaUrl: string }; kalshi?: { http: VenueHttp; apiUrl: string } },
  options: SearchOptions = SEARCH_DEFAULTS,
): Promise<VenueSearch[]> {
  const run = async (venue: VenueName, work: () => Promise<SearchRow[]>): Promise<VenueSearch> => {
    try {
      return { venue, rows: await work(), problem: null };
    } catch (error) {
      return { venue, rows: [], problem: (error as Error).message.split("\n")[0]! };
    }
  };
  const p = venues.polymarket;
  const k = venues.kalshi;
  return Promise.all([
    ...(p ? [run("polymarket", () => searchPolymarket(p.http, p.gammaUrl, words, options))] : []),
    ...(k ? [run("kalshi", () => searchKalshi(k.http, k.apiUrl, words, options))] : []),
  ]);
}

const CATALOG_FIELD: Record<VenueName, Record<SearchKind, string>> = {
  polymarket: { tag: "tagSlugs", event: "eventSlugs", series: "" },
  kalshi: { tag: "", event: "eventTickers", series: "seriesTickers" },
};

/** The rows as a table: venue, kind, selector, title, status, close date, open markets. */
export function formatSearchTable(results: readonly VenueSearch[], titleWidth = 60): string {
  const rows = results.flatMap((r) => r.rows);
  if (rows.length === 0) return "no tag, event or series matches\n";
  const cut = (s: string) => (s.length > titleWidth ? `${s.slice(0, titleWidth - 1)}…` : s);
  const table = [
    ["VENUE", "KIND", "SELECTOR", "TITLE", "STATUS", "CLOSES", "MARKETS"],
    ...rows.map((r) => [
      r.venue,
      `${r.kind}${r.exclusive ? "*" : ""}`,
      r.selector,
      cut(r.title),
      r.status,
      r.closes ?? "-",
      r.markets === null ? "-" : `${r.markets}${r.capped ? "+" : ""}`,
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
  const fields = [
    ...new Set(rows.map((r) => `${r.venue} ${r.kind}: universe.${CATALOG_FIELD[r.venue][r.kind]}`)),
  ].sort();
  const notes = [
    `In a catalog: ${fields.join("; ")}.`,
    ...(rows.some((r) => r.exclusive)
      ? ["* mutually exclusive event: its selector can also be a volatility series' `event`."]
      : []),
    ...(rows.some((r) => r.capped) ? ["+ counted up to the page cap; there are more."] : []),
  ];
  return `${lines.join("\n")}\n\n${notes.join("\n")}\n`;
}
