import Decimal from "decimal.js";
import { decimalOf, quoteOf, type Level } from "./book";
import type { VenueHttp } from "./http";
import { isVenueError, VenueError } from "./http";
import { arr, bool, dateOf, isObj, str, type Obj } from "./read";
import {
  kalshiCutoff,
  kalshiEventAnswer,
  kalshiEventsPage,
  kalshiMarketAnswer,
  kalshiMarketsPage,
  kalshiOrderbook,
} from "./schemas";
import { type BookRead, DiscoveredMarkets, type VenueConnector, type VenueEventLegs, type VenueMarket } from "./types";

const PAGE = 200;
const MAX_PAGES = 50;
/** `/historical/markets` serves at most 1,000 markets a page. */
const HISTORICAL_PAGE = 1000;
const SETTLED = new Set(["settled", "finalized", "determined"]);

// Kalshi, as documented in 2026:
// - canonical host `external-api.kalshi.com` (the shared `api.elections.kalshi.com` still answers):
//   https://docs.kalshi.com/getting_started/api_environments
// - integer cents and count fields removed from every response on 2026-03-12: only `*_dollars`
//   strings (up to 4 decimals) and `*_fp` remain: https://docs.kalshi.com/getting_started/subpenny_pricing
// - markets settled before `GET /historical/cutoff`'s `market_settled_ts` (about three months back)
//   and their candlesticks are served only by `/historical/markets` and
//   `/historical/markets/{ticker}/candlesticks`: https://docs.kalshi.com/getting_started/historical_data
// - reads metered in tokens, 10 a request, Basic 200 a second; a batch is billed per item; a 429
//   carries no Retry-After nor rate-limit headers ("apply exponential backoff"):
//   https://docs.kalshi.com/getting_started/rate_limits (VenueHttp backs off and holds the budget)

/** The endpoints the connector reads, as drift incidents and `venues doctor` name them. */
export const KALSHI_ENDPOINTS = {
  events: "kalshi GET /events",
  event: "kalshi GET /events/{ticker}",
  market: "kalshi GET /markets/{ticker}",
  orderbook: "kalshi GET /markets/{ticker}/orderbook",
  candlesticks: "kalshi GET /series/{series}/markets/{ticker}/candlesticks",
  batchCandlesticks: "kalshi GET /markets/candlesticks",
  cutoff: "kalshi GET /historical/cutoff",
  historicalMarkets: "kalshi GET /historical/markets",
  historicalMarket: "kalshi GET /historical/markets/{ticker}",
  historicalCandlesticks: "kalshi GET /historical/markets/{ticker}/candlesticks",
} as const;

/** `market_settled_ts` as a Date: an RFC 3339 time, or unix seconds. */
export function cutoffOf(v: string | number): Date | null {
  const t = typeof v === "number" ? v * 1000 : /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : null;
}

/**
 * Kalshi trade API v2: `/events?series_ticker=&status=open&with_nested_markets=true` (cursor
 * pages), `/events/{ticker}`, `/markets/{ticker}`, `/markets/{ticker}/orderbook`, and the
 * historical tier (`/historical/cutoff`, `/historical/markets`) for markets settled before its
 * cutoff. Books hold bids only: a NO bid at p is a YES ask at 1 - p; prices are `*_dollars` strings.
 */
export class KalshiConnector implements VenueConnector {
  readonly venue = "kalshi" as const;

  constructor(
    private readonly http: VenueHttp,
    private readonly apiUrl: string,
  ) {}

  private market(m: Obj, event: Obj | null, selectors: string[]): VenueMarket | null {
    const ticker = str(m, "ticker");
    if (!ticker) return null;
    const eventTicker = str(m, "event_ticker") ?? (event ? str(event, "event_ticker") : null) ?? "";
    const mutuallyExclusive = event ? bool(event, "mutually_exclusive") === true : false;
    const status = str(m, "status") ?? "";
    const result = str(m, "result");
    const resolved = SETTLED.has(status) && (result === "yes" || result === "no");
    const sub = str(m, "yes_sub_title") ?? str(m, "subtitle");
    const title = str(m, "title") ?? ticker;
    const seriesTicker = event ? str(event, "series_ticker") : null;
    return {
      venue: "kalshi",
      conditionId: `kalshi:${ticker}`,
      venueRef: ticker,
      label: sub && mutuallyExclusive ? `${event ? (str(event, "title") ?? title) : title}: ${sub}` : title,
      legKey: mutuallyExclusive
        ? (ticker.startsWith(`${eventTicker}-`) ? ticker.slice(eventTicker.length + 1) : ticker).toLowerCase()
        : null,
      eventKey: eventTicker,
      selectors: [
        ...new Set([
          ...selectors,
          ...(seriesTicker ? [`kalshi:series:${seriesTicker}`] : []),
          ...(eventTicker ? [`kalshi:event:${eventTicker}`] : []),
        ]),
      ],
      settlementDate: dateOf(m.close_time) ?? dateOf(m.expiration_time),
      closed: status !== "active" && status !== "open",
      resolved,
      outcome: resolved ? (result === "yes" ? 1 : 0) : null,
    };
  }

  private marketsOfEvent(body: Obj, selectors: string[]): VenueMarket[] {
    const event = isObj(body.event) ? body.event : body;
    const nested = arr(event, "markets") ?? arr(body, "markets") ?? [];
    return nested
      .filter(isObj)
      .map((m) => this.market(m, event, selectors))
      .filter((m): m is VenueMarket => m !== null);
  }

  async discover(selectors: readonly string[]): Promise<{ markets: VenueMarket[]; problems: string[] }> {
    const problems: string[] = [];
    const found = new DiscoveredMarkets();
    const add = (ms: VenueMarket[]) => found.add(ms);
    await Promise.all(
      selectors.map(async (selector) => {
        const [, kind, value] = selector.split(":", 3) as [string, string, string];
        try {
          if (kind === "series") {
            // `status=open` leaves out events with no market open for trading (closed, settled):
            // markets held from them are read by `lookup`.
            await this.seriesEvents(value, "status=open", (e) => add(this.marketsOfEvent(e, [selector])));
          } else if (kind === "event") {
            // `/events/{ticker}` answers an event whatever its status, with all its markets
            const body = await this.http.read(
              `${this.apiUrl}/events/${encodeURIComponent(value)}?with_nested_markets=true`,
              kalshiEventAnswer,
              { endpoint: KALSHI_ENDPOINTS.event, notFoundIsAnswer: true },
            );
            add(this.marketsOfEvent(body as Obj, [selector]));
          }
        } catch (error) {
          problems.push(`kalshi ${selector}: ${(error as Error).message}`);
        }
      }),
    );
    return { markets: found.list(), problems };
  }

  /**
   * `/events?series_ticker=` with nested markets, every cursor page (until an empty cursor). Nested
   * markets come whatever their status (one settled early is read as resolved).
   */
  private async seriesEvents(series: string, filter: string, add: (event: Obj) => void): Promise<void> {
    let cursor = "";
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = `${this.apiUrl}/events?series_ticker=${encodeURIComponent(series)}&${filter}&with_nested_markets=true&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const body = await this.http.read(url, kalshiEventsPage, { endpoint: KALSHI_ENDPOINTS.events });
      for (const e of body.events) add(e as Obj);
      const next = body.cursor ?? "";
      if (next && next === cursor) throw new VenueError(url, "the venue sent the same cursor again: read stopped");
      cursor = next;
      if (!cursor) break;
    }
  }

  /** `GET /historical/cutoff`'s `market_settled_ts`: markets settled before it are served only by the historical tier. */
  async historicalCutoff(): Promise<Date> {
    const body = await this.http.read(`${this.apiUrl}/historical/cutoff`, kalshiCutoff, {
      endpoint: KALSHI_ENDPOINTS.cutoff,
    });
    const at = cutoffOf(body.market_settled_ts);
    if (at === null)
      throw new VenueError(
        `${this.apiUrl}/historical/cutoff`,
        `unreadable market_settled_ts ${JSON.stringify(body.market_settled_ts)}`,
      );
    return at;
  }

  /**
   * Markets of a series settled before the historical cutoff and closing at `since` or later, from
   * `/historical/markets?series_ticker=` (cursor pages): the live lists no longer hold them, so
   * without this read a back-calculation reaching past the cutoff would keep only the survivors.
   */
  private async historicalMarkets(series: string, since: Date, selector: string): Promise<VenueMarket[]> {
    const out: VenueMarket[] = [];
    let cursor = "";
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = `${this.apiUrl}/historical/markets?series_ticker=${encodeURIComponent(series)}&limit=${HISTORICAL_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const body = await this.http.read(url, kalshiMarketsPage, { endpoint: KALSHI_ENDPOINTS.historicalMarkets });
      for (const m of body.markets) {
        const closes = Date.parse(m.close_time ?? m.expiration_time ?? "");
        const v = this.market(m as Obj, null, [selector, `kalshi:series:${series}`]);
        if (v && Number.isFinite(closes) && closes >= since.getTime()) out.push({ ...v, historical: true });
      }
      const next = body.cursor ?? "";
      if (!next || next === cursor) break;
      cursor = next;
    }
    return out;
  }

  /**
   * Events of the series no longer open for trading, closed (awaiting determination) or settled,
   * with a market closing at `since` or later (`status=closed|settled&min_close_ts=`, one status per
   * request). An event selector needs no such read: `/events/{ticker}` answers whatever its status.
   */
  async closedSince(
    selectors: readonly string[],
    since: Date,
  ): Promise<{ markets: VenueMarket[]; problems: string[] }> {
    const problems: string[] = [];
    const found = new DiscoveredMarkets();
    const minClose = Math.floor(since.getTime() / 1000);
    // one read of the cutoff for all the selectors; null when no selector needs it
    const series = selectors.some((s) => s.startsWith("kalshi:series:"));
    const cutoff = series ? this.historicalCutoff() : Promise.resolve(null);
    cutoff.catch(() => undefined);
    await Promise.all(
      selectors.flatMap((selector) => {
        const [, kind, value] = selector.split(":", 3) as [string, string, string];
        if (kind !== "series") return [];
        const live = ["closed", "settled"].map(async (status) => {
          try {
            await this.seriesEvents(value, `status=${status}&min_close_ts=${minClose}`, (e) =>
              found.add(this.marketsOfEvent(e, [selector])),
            );
          } catch (error) {
            problems.push(`kalshi ${selector} (${status} since ${since.toISOString()}): ${(error as Error).message}`);
          }
        });
        return [
          ...live,
          cutoff
            .then(async (at) =>
              at !== null && since < at ? found.add(await this.historicalMarkets(value, since, selector)) : undefined,
            )
            .catch(
              (error: Error) =>
                void problems.push(`kalshi ${selector} (settled before the historical cutoff): ${error.message}`),
            ),
        ];
      }),
    );
    return { markets: found.list(), problems };
  }

  async event(ticker: string): Promise<VenueEventLegs | null> {
    const body = (await this.http.read(
      `${this.apiUrl}/events/${encodeURIComponent(ticker)}?with_nested_markets=true`,
      kalshiEventAnswer,
      {
        endpoint: KALSHI_ENDPOINTS.event,
        notFoundIsAnswer: true,
      },
    )) as Obj;
    const event = body.event as Obj;
    if (bool(event, "mutually_exclusive") !== true)
      throw new VenueError(`kalshi event ${ticker}`, "is not mutually exclusive");
    const legs = this.marketsOfEvent(body, []);
    const last = legs.map((l) => l.settlementDate?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return {
      venue: "kalshi",
      event: ticker,
      title: str(event, "title") ?? ticker,
      legs,
      settlementDate: last ? new Date(last).toISOString().slice(0, 10) : null,
    };
  }

  /**
   * Held markets discovery no longer lists, one `GET /markets/{ticker}` each: it answers a market
   * whatever its status, settled included, until the historical cutoff passes its settlement;
   * then (a 404 there) `GET /historical/markets/{ticker}` answers it.
   */
  async lookup(conditionIds: readonly string[]): Promise<VenueMarket[]> {
    const out = await Promise.all(
      conditionIds.map(async (id) => {
        const ticker = encodeURIComponent(id.replace(/^kalshi:/, ""));
        try {
          const body = await this.http.read(`${this.apiUrl}/markets/${ticker}`, kalshiMarketAnswer, {
            endpoint: KALSHI_ENDPOINTS.market,
            notFoundIsAnswer: true,
          });
          return this.market(body.market as Obj, null, []);
        } catch (error) {
          if (!isVenueError(error) || error.status !== 404) throw error;
          const body = await this.http.read(`${this.apiUrl}/historical/markets/${ticker}`, kalshiMarketAnswer, {
            endpoint: KALSHI_ENDPOINTS.historicalMarket,
            notFoundIsAnswer: true,
          });
          const m = this.market(body.market as Obj, null, []);
          return m && { ...m, historical: true };
        }
      }),
    );
    return out.filter((m): m is VenueMarket => m !== null);
  }

  async books(markets: readonly VenueMarket[]): Promise<BookRead[]> {
    return Promise.all(
      markets.map(async (m): Promise<BookRead> => {
        try {
          const url = `${this.apiUrl}/markets/${encodeURIComponent(m.venueRef)}/orderbook`;
          const body = this.http.parse(
            await this.http.getJson(url, { endpoint: KALSHI_ENDPOINTS.orderbook, notFoundIsAnswer: true }),
            kalshiOrderbook,
            url,
            KALSHI_ENDPOINTS.orderbook,
          );
          const sides = kalshiBook(body);
          if (sides === null) return { conditionId: m.conditionId, problem: "malformed order book" };
          const asks = sides.no.map((l) => ({ price: new Decimal(1).minus(l.price), size: l.size }));
          const q = quoteOf(sides.yes, asks);
          return "quote" in q
            ? { conditionId: m.conditionId, quote: q.quote }
            : { conditionId: m.conditionId, problem: q.problem };
        } catch (error) {
          return { conditionId: m.conditionId, problem: (error as Error).message };
        }
      }),
    );
  }
}

/**
 * YES and NO bids of an order book: `orderbook_fp` with `yes_dollars` / `no_dollars` levels
 * [["0.3500", "900.00"], ...] (dollar strings, sizes `_fp`), in any order. The integer cents shape
 * (`orderbook` with `yes` / `no` in cents) was removed on 2026-03-12 and is not read: an answer in it
 * has no book (and is drift: lib/venues/schemas.ts).
 */
export function kalshiBook(body: unknown): { yes: Level[]; no: Level[] } | null {
  if (!isObj(body) || !isObj(body.orderbook_fp)) return null;
  const book = body.orderbook_fp;
  const side = (dollars: string): Level[] | null => {
    const d = book[dollars];
    // An absent or null side is an empty side (Kalshi sends null when nobody bids).
    if (d === undefined || d === null) return [];
    return Array.isArray(d) ? levels(d) : null;
  };
  const yes = side("yes_dollars");
  const no = side("no_dollars");
  return yes && no ? { yes, no } : null;
}

function levels(list: unknown[]): Level[] | null {
  const out: Level[] = [];
  for (const l of list) {
    if (!Array.isArray(l) || l.length < 2) return null;
    const price = typeof l[0] === "string" ? decimalOf(l[0]) : null;
    const size = decimalOf(l[1]);
    if (price === null || size === null) return null;
    out.push({ price, size });
  }
  return out;
}
