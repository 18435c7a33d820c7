import Decimal from "decimal.js";
import { decimalOf } from "./book";
import type { VenueHttp } from "./http";
import { VenueError } from "./http";
import { arr, isObj, str, type Obj } from "./read";
import type { VenueName } from "./types";

const HOUR_MS = 3_600_000;
/** Each history request spans at most this long (the venues refuse or thin out longer spans at hourly fidelity). */
export const HISTORY_WINDOW_MS = 14 * 24 * HOUR_MS;

/** A market's price at one hour from the venue's history: no book, so no depth. */
export interface HistoryPoint {
  /** the hour (UTC, on the hour) the price stands for: the last price of the hour ending then */
  t: Date;
  bestBid: Decimal;
  bestAsk: Decimal;
  mid: Decimal;
}

/** A market whose history is read: by its YES token (Polymarket) or its ticker and series (Kalshi). */
export interface HistoryMarket {
  venue: VenueName;
  conditionId: string;
  /** Polymarket YES token id, Kalshi market ticker */
  venueRef: string;
  /** Kalshi: the series the market belongs to (its candlesticks path names it) */
  series?: string | null;
}

export type HistoryRead = { conditionId: string; points: HistoryPoint[] } | { conditionId: string; problem: string };

const ceilHourMs = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;

/** Windows of at most HISTORY_WINDOW_MS covering [from, until], in unix seconds. */
export function historyWindows(from: Date, until: Date): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (let s = from.getTime(); s <= until.getTime(); s += HISTORY_WINDOW_MS) {
    out.push({ start: Math.floor(s / 1000), end: Math.floor(Math.min(until.getTime(), s + HISTORY_WINDOW_MS - 1000) / 1000) });
  }
  return out;
}

/**
 * Prices at the hours from `from` to `until`: each hour takes the last price observed in the hour
 * ending at it; an hour with no price in it has no point (the engine then treats it as missing).
 */
export function hourlyPoints(raw: ReadonlyArray<{ at: number; bid: Decimal; ask: Decimal }>, from: Date, until: Date): HistoryPoint[] {
  const byHour = new Map<number, { at: number; bid: Decimal; ask: Decimal }>();
  for (const r of raw) {
    const hour = ceilHourMs(r.at);
    if (hour < from.getTime() || hour > until.getTime()) continue;
    const prior = byHour.get(hour);
    if (!prior || prior.at <= r.at) byHour.set(hour, r);
  }
  return [...byHour.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([hour, r]) => ({ t: new Date(hour), bestBid: r.bid, bestAsk: r.ask, mid: r.bid.plus(r.ask).dividedBy(2) }));
}

/** Polymarket CLOB `GET /prices-history?market=<token>&startTs&endTs&fidelity=60`: `{history: [{t, p}]}`, t unix seconds. */
export function readPolymarketHistory(body: unknown, url: string): Array<{ at: number; bid: Decimal; ask: Decimal }> {
  if (!isObj(body)) throw new VenueError(url, "malformed price history (not an object)");
  const list = arr(body, "history");
  if (list === null) throw new VenueError(url, "malformed price history (no history list)");
  const out: Array<{ at: number; bid: Decimal; ask: Decimal }> = [];
  for (const point of list.filter(isObj)) {
    const p = decimalOf(point.p);
    if (typeof point.t !== "number" || p === null || p.lessThan(0) || p.greaterThan(1)) continue;
    out.push({ at: point.t * 1000, bid: p, ask: p });
  }
  return out;
}

/** One side's close: the dollar string when present, else cents. */
function close(side: unknown): Decimal | null {
  if (!isObj(side)) return null;
  const dollars = decimalOf(str(side as Obj, "close_dollars"));
  if (dollars !== null) return dollars;
  return typeof side.close === "number" ? new Decimal(side.close).dividedBy(100) : null;
}

/**
 * Kalshi `GET /series/{series}/markets/{ticker}/candlesticks?start_ts&end_ts&period_interval=60`:
 * `{ticker, candlesticks: [{end_period_ts, yes_bid: {close_dollars, …}, yes_ask: {…}, price, …}]}`.
 * A candle without both a YES bid and a YES ask (or with them crossed) is skipped.
 */
export function readKalshiCandles(body: unknown, url: string): Array<{ at: number; bid: Decimal; ask: Decimal }> {
  if (!isObj(body)) throw new VenueError(url, "malformed candlesticks (not an object)");
  const list = arr(body, "candlesticks");
  if (list === null) throw new VenueError(url, "malformed candlesticks (no candlesticks list)");
  const out: Array<{ at: number; bid: Decimal; ask: Decimal }> = [];
  for (const c of list.filter(isObj)) {
    const bid = close(c.yes_bid);
    const ask = close(c.yes_ask);
    if (typeof c.end_period_ts !== "number" || bid === null || ask === null) continue;
    if (bid.lessThan(0) || ask.greaterThan(1) || bid.greaterThan(ask) || ask.isZero()) continue;
    out.push({ at: c.end_period_ts * 1000, bid, ask });
  }
  return out;
}

/**
 * Reads the hourly price history of markets from the venues (within the client's concurrency and
 * retry rules); a market whose history cannot be read is reported, never guessed.
 */
export async function readHistory(
  http: VenueHttp,
  urls: { polymarketClobUrl: string; kalshiApiUrl: string },
  markets: readonly HistoryMarket[],
  from: Date,
  until: Date,
): Promise<HistoryRead[]> {
  return Promise.all(
    markets.map(async (m): Promise<HistoryRead> => {
      try {
        const raw: Array<{ at: number; bid: Decimal; ask: Decimal }> = [];
        for (const w of historyWindows(from, new Date(until.getTime()))) {
          if (m.venue === "polymarket") {
            const url = `${urls.polymarketClobUrl}/prices-history?market=${encodeURIComponent(m.venueRef)}&startTs=${w.start - 3600}&endTs=${w.end}&fidelity=60`;
            raw.push(...readPolymarketHistory(await http.getJson(url), url));
          } else {
            if (!m.series) return { conditionId: m.conditionId, problem: "no series ticker known for its candlesticks" };
            const url = `${urls.kalshiApiUrl}/series/${encodeURIComponent(m.series)}/markets/${encodeURIComponent(m.venueRef)}/candlesticks?start_ts=${w.start - 3600}&end_ts=${w.end}&period_interval=60`;
            raw.push(...readKalshiCandles(await http.getJson(url), url));
          }
        }
        return { conditionId: m.conditionId, points: hourlyPoints(raw, from, until) };
      } catch (error) {
        return { conditionId: m.conditionId, problem: (error as Error).message };
      }
    }),
  );
}
