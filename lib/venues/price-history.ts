import Decimal from "decimal.js";
import { dec } from "@/lib/engine/decimal";
import { boundedCache } from "@/lib/engine/bounded-cache";
import { decimalText } from "./book";
import type { VenueHttp } from "./http";
import { isVenueError, VenueError } from "./http";
import { KALSHI_ENDPOINTS } from "./kalshi";
import { POLY_ENDPOINTS } from "./polymarket";
import { arr, isObj, str, type Obj } from "./read";
import { clobBatchHistory, clobHistory, kalshiBatchCandles, kalshiCandles, kalshiHistoricalCandles } from "./schemas";
import type { VenueName } from "./types";

const HOUR_MS = 3_600_000;
/** Each Polymarket history request spans at most this long (it refuses or thins out longer spans at hourly fidelity). */
export const HISTORY_WINDOW_MS = 14 * 24 * HOUR_MS;
/**
 * Each Kalshi candlesticks request spans at most this long: 5,000 hourly candles of one market
 * less the hour before (its single form answers at most 5,000; the batch form fits its 10,000
 * candles by asking fewer tickers, see batchesOf). Kalshi bills every request 10 tokens a ticker
 * whatever its span (Kalshi API docs, page getting_started/rate_limits: "every item in the batch
 * is billed separately"), so a 90-day back-calculation reads each market once, not once per
 * 14 days: 800 markets cost 8,000 tokens, not 56,000.
 */
export const KALSHI_WINDOW_MS = 4_998 * HOUR_MS;

/** A market's price at one hour from the venue's history: no book, so no depth. */
export interface HistoryPoint {
  /** the hour (UTC, on the hour) the price stands for: the last price of the hour ending then */
  t: Date;
  bestBid: Decimal;
  bestAsk: Decimal;
  mid: Decimal;
  /** the price is a 12-hour point carried to this hour (a resolved Polymarket market: see coarsePoints) */
  coarse?: true;
}

/** A market whose history is read: by its YES token (Polymarket) or its ticker and series (Kalshi). */
export interface HistoryMarket {
  venue: VenueName;
  conditionId: string;
  /** Polymarket YES token id, Kalshi market ticker */
  venueRef: string;
  /** Kalshi: the series the market belongs to (its candlesticks path names it) */
  series?: string | null;
  /** Kalshi: settled before the historical cutoff: its candlesticks come from `/historical/markets/{ticker}/candlesticks` */
  historical?: boolean;
  /** Polymarket: resolved, so `/prices-history` has nothing finer than 12 hours for it (see coarsePoints) */
  resolved?: boolean;
}

/**
 * One market's history as read. `answered`: the venue answered every read of it; no points means
 * it has no price in the span (no history), never that a read failed. `failed`: a read it needed
 * was not answered (connection refused, a timeout, a 5xx or 429 still there after the retries, a
 * refusal, an answer in an unexpected shape): its history is unknown, so nothing may be computed
 * from its absence, and the job that needed it waits for a later run.
 */
export type HistoryRead =
  | { conditionId: string; outcome: "answered"; points: HistoryPoint[] }
  | { conditionId: string; outcome: "failed"; problem: string };

const ceilHourMs = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;

/**
 * A history price (a decimal string or number; null when it is not a finite decimal) as the
 * engine's decimal: millions of history prices take a few hundred distinct values (the venues'
 * ticks), so each value is parsed once (`dec` keeps the decimals it made from text).
 */
function historyPrice(v: unknown): Decimal | null {
  const text = decimalText(v);
  return text === null ? null : dec(text);
}

/** Mids by bid, then by ask: a pair of (interned) ticks gives the same mid every time. */
const midsByBid = boundedCache<Decimal, (ask: Decimal, make: (ask: Decimal) => Decimal) => Decimal>(4_096);

/** (bid + ask) / 2, the same decimal for the same (interned) bid and ask. */
function midOf(bid: Decimal, ask: Decimal): Decimal {
  if (bid === ask || bid.equals(ask)) return bid;
  return midsByBid(bid, () => boundedCache<Decimal, Decimal>(4_096))(ask, () =>
    dec(bid.plus(ask).dividedBy(2).toString()),
  );
}

/** Windows of at most `windowMs` (HISTORY_WINDOW_MS unless given) covering [from, until], in unix seconds. */
export function historyWindows(
  from: Date,
  until: Date,
  windowMs = HISTORY_WINDOW_MS,
): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (let s = from.getTime(); s <= until.getTime(); s += windowMs) {
    out.push({
      start: Math.floor(s / 1000),
      end: Math.floor(Math.min(until.getTime(), s + windowMs - 1000) / 1000),
    });
  }
  return out;
}

/** Dates by hour: the points of every market at one hour share one (dates are never changed here). */
const hourDates = boundedCache<number, Date>(65_536);
const hourDate = (ms: number): Date => hourDates(ms, () => new Date(ms));

/**
 * Prices at the hours from `from` to `until`: each hour takes the last price observed in the hour
 * ending at it; an hour with no price in it has no point (the engine then treats it as missing).
 */
export function hourlyPoints(
  raw: ReadonlyArray<{ at: number; bid: Decimal; ask: Decimal }>,
  from: Date,
  until: Date,
): HistoryPoint[] {
  const byHour = new Map<number, { at: number; bid: Decimal; ask: Decimal }>();
  for (const r of raw) {
    const hour = ceilHourMs(r.at);
    if (hour < from.getTime() || hour > until.getTime()) continue;
    const prior = byHour.get(hour);
    if (!prior || prior.at <= r.at) byHour.set(hour, r);
  }
  return [...byHour.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([hour, r]) => ({ t: hourDate(hour), bestBid: r.bid, bestAsk: r.ask, mid: midOf(r.bid, r.ask) }));
}

/**
 * The hours of a resolved Polymarket market, whose `/prices-history` has nothing finer than 12
 * hours (https://github.com/Polymarket/py-clob-client/issues/216: "returns empty data for resolved
 * markets at granularities below 12 hours"): each hour from its first 12-hour point through its
 * last takes the latest point at or before it, carried forward, and is marked `coarse`. There are
 * no hours after its last point: the back-calculation dates its resolution the hour after it, as
 * for any history (in the history while it traded, never a price it did not show).
 */
export function coarsePoints(
  raw: ReadonlyArray<{ at: number; bid: Decimal; ask: Decimal }>,
  from: Date,
  until: Date,
): HistoryPoint[] {
  const sorted = [...raw].sort((a, b) => a.at - b.at);
  if (sorted.length === 0) return [];
  const out: HistoryPoint[] = [];
  const last = Math.min(until.getTime(), ceilHourMs(sorted.at(-1)!.at));
  let i = 0;
  for (let hour = ceilHourMs(sorted[0]!.at); hour <= last; hour += HOUR_MS) {
    while (i + 1 < sorted.length && sorted[i + 1]!.at <= hour) i++;
    const r = sorted[i]!;
    if (hour >= from.getTime())
      out.push({ t: hourDate(hour), bestBid: r.bid, bestAsk: r.ask, mid: midOf(r.bid, r.ask), coarse: true });
  }
  return out;
}

/** Polymarket CLOB `GET /prices-history?market=<token>&startTs&endTs&fidelity=60`: `{history: [{t, p}]}`, t unix seconds. */
export function readPolymarketHistory(body: unknown, url: string): Array<{ at: number; bid: Decimal; ask: Decimal }> {
  if (!isObj(body)) throw new VenueError(url, "malformed price history (not an object)");
  const list = arr(body, "history");
  if (list === null) throw new VenueError(url, "malformed price history (no history list)");
  const out: Array<{ at: number; bid: Decimal; ask: Decimal }> = [];
  for (const point of list.filter(isObj)) {
    const p = historyPrice(point.p);
    if (typeof point.t !== "number" || p === null || p.lessThan(0) || p.greaterThan(1)) continue;
    out.push({ at: point.t * 1000, bid: p, ask: p });
  }
  return out;
}

/**
 * One side's close, a dollar string: `close_dollars` in the live candlesticks (the integer cents
 * `close` was removed on 2026-03-12: https://docs.kalshi.com/getting_started/subpenny_pricing), or
 * `close` in the historical ones, which name their dollar strings without the suffix
 * (https://docs.kalshi.com/api-reference/historical/get-historical-market-candlesticks).
 */
function close(side: unknown, historical: boolean): Decimal | null {
  if (!isObj(side)) return null;
  return historyPrice(str(side as Obj, historical ? "close" : "close_dollars"));
}

/**
 * Kalshi `GET /series/{series}/markets/{ticker}/candlesticks?start_ts&end_ts&period_interval=60`:
 * `{ticker, candlesticks: [{end_period_ts, yes_bid: {close_dollars, …}, yes_ask: {…}, price, …}]}`
 * (`historical`: `GET /historical/markets/{ticker}/candlesticks`, closes named `close`). A candle
 * without both a YES bid and a YES ask (or with them crossed) is skipped.
 */
export function readKalshiCandles(
  body: unknown,
  url: string,
  historical = false,
): Array<{ at: number; bid: Decimal; ask: Decimal }> {
  if (!isObj(body)) throw new VenueError(url, "malformed candlesticks (not an object)");
  const list = arr(body, "candlesticks");
  if (list === null) throw new VenueError(url, "malformed candlesticks (no candlesticks list)");
  const out: Array<{ at: number; bid: Decimal; ask: Decimal }> = [];
  for (const c of list.filter(isObj)) {
    const bid = close(c.yes_bid, historical);
    const ask = close(c.yes_ask, historical);
    if (typeof c.end_period_ts !== "number" || bid === null || ask === null) continue;
    if (bid.lessThan(0) || ask.greaterThan(1) || bid.greaterThan(ask) || ask.isZero()) continue;
    out.push({ at: c.end_period_ts * 1000, bid, ask });
  }
  return out;
}

/** Polymarket CLOB `POST /batch-prices-history` takes at most this many token ids. */
export const POLY_BATCH = 20;
/** Kalshi `GET /markets/candlesticks` takes at most 100 tickers and answers at most 10,000 candles in all. */
export const KALSHI_BATCH = 100;
export const KALSHI_BATCH_CANDLES = 10_000;

type Raw = Array<{ at: number; bid: Decimal; ask: Decimal }>;

/** Polymarket `POST /batch-prices-history`: `{history: {<token id>: [{t, p}]}}`; a token the venue left out has no points. */
export function readPolymarketBatch(body: unknown, url: string, tokens: readonly string[]): Map<string, Raw> {
  if (!isObj(body) || !isObj(body.history)) throw new VenueError(url, "malformed batch price history (no history map)");
  const history = body.history;
  return new Map(
    tokens.map((t) => [t, Array.isArray(history[t]) ? readPolymarketHistory({ history: history[t] }, url) : []]),
  );
}

/** Kalshi `GET /markets/candlesticks`: `{markets: [{market_ticker, candlesticks: [...]}]}`, one entry per market it knows. */
export function readKalshiBatch(body: unknown, url: string): Map<string, Raw> {
  const list = isObj(body) ? arr(body, "markets") : null;
  if (list === null) throw new VenueError(url, "malformed batch candlesticks (no markets list)");
  const out = new Map<string, Raw>();
  for (const m of list.filter(isObj)) {
    const ticker = str(m, "market_ticker");
    if (ticker) out.set(ticker, readKalshiCandles(m, url));
  }
  return out;
}

/** A 4xx other than 429: the venue refused this request as asked (the single form may still answer). */
const refused = (error: unknown) =>
  isVenueError(error) && error.status !== null && error.status >= 400 && error.status < 500 && error.status !== 429;

const chunk = <T>(xs: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));

/** Minutes between the points `/prices-history` serves for a resolved market: nothing finer than 12 hours. */
export const RESOLVED_FIDELITY_MINUTES = 720;

type Window = { start: number; end: number };

/** The request for one market's history over a window in the single form (the venues' own). */
function singleRequest(
  urls: { polymarketClobUrl: string; kalshiApiUrl: string },
  m: HistoryMarket,
  w: Window,
): { url: string; endpoint: string } {
  const enc = encodeURIComponent;
  if (m.venue === "polymarket") {
    const fidelity = m.resolved ? RESOLVED_FIDELITY_MINUTES : 60;
    // a resolved market's 12-hour points: from 12 hours before the window, so its first hours have the point before them
    const from = w.start - (m.resolved ? RESOLVED_FIDELITY_MINUTES * 60 : 3600);
    return {
      url: `${urls.polymarketClobUrl}/prices-history?market=${enc(m.venueRef)}&startTs=${from}&endTs=${w.end}&fidelity=${fidelity}`,
      endpoint: POLY_ENDPOINTS.pricesHistory,
    };
  }
  if (m.historical)
    return {
      url: `${urls.kalshiApiUrl}/historical/markets/${enc(m.venueRef)}/candlesticks?start_ts=${w.start - 3600}&end_ts=${w.end}&period_interval=60`,
      endpoint: KALSHI_ENDPOINTS.historicalCandlesticks,
    };
  if (!m.series) throw new Error("no series ticker known for its candlesticks");
  return {
    url: `${urls.kalshiApiUrl}/series/${enc(m.series)}/markets/${enc(m.venueRef)}/candlesticks?start_ts=${w.start - 3600}&end_ts=${w.end}&period_interval=60`,
    endpoint: KALSHI_ENDPOINTS.candlesticks,
  };
}

/** One market's history over a window, in the single form, read through its schema (a different shape is drift). */
async function readSingle(
  http: VenueHttp,
  urls: { polymarketClobUrl: string; kalshiApiUrl: string },
  m: HistoryMarket,
  w: Window,
): Promise<Raw> {
  const { url, endpoint } = singleRequest(urls, m, w);
  let body: unknown;
  try {
    body = await http.getJson(url, { endpoint, notFoundIsAnswer: true });
  } catch (error) {
    // Kalshi answers 404 for a market it has no candlesticks of: an answer with no points
    if (m.venue === "kalshi" && isVenueError(error) && error.status === 404) return [];
    throw error;
  }
  if (m.venue === "polymarket") return readPolymarketHistory(http.parse(body, clobHistory, url, endpoint), url);
  return readKalshiCandles(
    http.parse(body, m.historical ? kalshiHistoricalCandles : kalshiCandles, url, endpoint),
    url,
    m.historical === true,
  );
}

/** A batch's history over a window: Polymarket `POST /batch-prices-history`, Kalshi `GET /markets/candlesticks` (billed per ticker). */
async function readBatch(
  http: VenueHttp,
  urls: { polymarketClobUrl: string; kalshiApiUrl: string },
  group: readonly HistoryMarket[],
  w: Window,
): Promise<Map<string, Raw>> {
  if (group[0]!.venue === "polymarket") {
    const url = `${urls.polymarketClobUrl}/batch-prices-history`;
    const tokens = group.map((m) => m.venueRef);
    const resolved = group[0]!.resolved === true;
    const fidelity = resolved ? RESOLVED_FIDELITY_MINUTES : 60;
    const post = {
      markets: tokens,
      start_ts: w.start - (resolved ? RESOLVED_FIDELITY_MINUTES * 60 : 3600),
      end_ts: w.end,
      fidelity,
    };
    const body = await http.postJson(url, post, { endpoint: POLY_ENDPOINTS.batchPricesHistory });
    return readPolymarketBatch(http.parse(body, clobBatchHistory, url, POLY_ENDPOINTS.batchPricesHistory), url, tokens);
  }
  const url = `${urls.kalshiApiUrl}/markets/candlesticks?market_tickers=${group.map((m) => encodeURIComponent(m.venueRef)).join(",")}&start_ts=${w.start - 3600}&end_ts=${w.end}&period_interval=60`;
  const body = await http.getJson(url, { endpoint: KALSHI_ENDPOINTS.batchCandlesticks, cost: group.length });
  return readKalshiBatch(http.parse(body, kalshiBatchCandles, url, KALSHI_ENDPOINTS.batchCandlesticks), url);
}

/** The batches of one window: Polymarket's resolved and trading markets apart (their fidelities differ); Kalshi's historical ones have no batch form. */
function batchesOf(
  markets: readonly HistoryMarket[],
  w: Window,
): { batches: HistoryMarket[][]; singles: HistoryMarket[] } {
  const hours = Math.ceil((w.end - w.start + 3600) / 3600) + 1;
  const kalshiSize = Math.max(1, Math.min(KALSHI_BATCH, Math.floor(KALSHI_BATCH_CANDLES / hours)));
  const poly = markets.filter((m) => m.venue === "polymarket");
  const kalshi = markets.filter((m) => m.venue === "kalshi");
  return {
    batches: [
      ...chunk(
        poly.filter((m) => !m.resolved),
        POLY_BATCH,
      ),
      ...chunk(
        poly.filter((m) => m.resolved),
        POLY_BATCH,
      ),
      ...chunk(
        kalshi.filter((m) => !m.historical),
        kalshiSize,
      ),
    ],
    singles: kalshi.filter((m) => m.historical),
  };
}

/**
 * Reads the hourly price history of markets from the venues (within the client's concurrency and
 * retry rules) with their batch forms: Polymarket `POST /batch-prices-history` (20 tokens a
 * request, 14 days a window), Kalshi `GET /markets/candlesticks` (up to 100 tickers, 10,000
 * candles a request, KALSHI_WINDOW_MS a window). A
 * batch the venue refuses with a 4xx is read again market by market with the single form; a
 * market whose history cannot be read is reported as `failed`, never guessed, and one the venue
 * answered with no points (Kalshi's batch answer leaves such tickers out) as answered with none. A Kalshi market settled before
 * the historical cutoff is read from `/historical/markets/{ticker}/candlesticks`; a resolved
 * Polymarket market from its 12-hour points (coarsePoints).
 */
export async function readHistory(
  http: VenueHttp,
  urls: { polymarketClobUrl: string; kalshiApiUrl: string },
  markets: readonly HistoryMarket[],
  from: Date,
  until: Date,
): Promise<HistoryRead[]> {
  const raw = new Map<string, Raw>(markets.map((m) => [m.conditionId, []]));
  const problems = new Map<string, string>();
  const fail = (m: HistoryMarket, error: unknown) => problems.set(m.conditionId, (error as Error).message);

  const single = async (m: HistoryMarket, w: Window) => {
    if (problems.has(m.conditionId)) return;
    try {
      raw.get(m.conditionId)!.push(...(await readSingle(http, urls, m, w)));
    } catch (error) {
      fail(m, error);
    }
  };
  const batch = async (group: HistoryMarket[], w: Window) => {
    try {
      const got = await readBatch(http, urls, group, w);
      for (const m of group) {
        // Kalshi's batch answer leaves out the tickers without candles in the window, Polymarket's
        // maps a token without points to nothing: either way the venue answered, with no points
        raw.get(m.conditionId)!.push(...(got.get(m.venueRef) ?? []));
      }
    } catch (error) {
      if (refused(error)) await Promise.all(group.map((m) => single(m, w)));
      else for (const m of group) fail(m, error);
    }
  };

  const work: Array<Promise<void>> = [];
  const windows = { polymarket: HISTORY_WINDOW_MS, kalshi: KALSHI_WINDOW_MS };
  for (const venue of ["polymarket", "kalshi"] as const) {
    const mine = markets.filter((m) => m.venue === venue);
    if (mine.length === 0) continue;
    for (const w of historyWindows(from, new Date(until.getTime()), windows[venue])) {
      const { batches, singles } = batchesOf(mine, w);
      for (const group of batches) work.push(batch(group, w));
      for (const m of singles) work.push(single(m, w));
    }
  }
  await Promise.all(work);
  return markets.map((m): HistoryRead => {
    const problem = problems.get(m.conditionId);
    if (problem !== undefined) return { conditionId: m.conditionId, outcome: "failed", problem };
    const points = m.resolved
      ? coarsePoints(raw.get(m.conditionId)!, from, until)
      : hourlyPoints(raw.get(m.conditionId)!, from, until);
    return { conditionId: m.conditionId, outcome: "answered", points };
  });
}
