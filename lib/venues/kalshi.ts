import Decimal from "decimal.js";
import { decimalOf, quoteOf, type Level } from "./book";
import type { VenueHttp } from "./http";
import { VenueError } from "./http";
import { arr, bool, dateOf, isObj, str, type Obj } from "./read";
import { type BookRead, DiscoveredMarkets, type VenueConnector, type VenueEventLegs, type VenueMarket } from "./types";

const PAGE = 200;
const MAX_PAGES = 50;
const SETTLED = new Set(["settled", "finalized", "determined"]);

/**
 * Kalshi trade API v2: `/events?series_ticker=&status=open&with_nested_markets=true` (cursor
 * pages), `/events/{ticker}`, `/markets/{ticker}`, `/markets/{ticker}/orderbook`. Books hold bids
 * only: a NO bid at p is a YES ask at 1 - p. Dollar strings (`*_dollars`) are read when present,
 * cents (integers) otherwise.
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
      legKey: mutuallyExclusive ? (ticker.startsWith(`${eventTicker}-`) ? ticker.slice(eventTicker.length + 1) : ticker).toLowerCase() : null,
      eventKey: eventTicker,
      selectors: [...new Set([...selectors, ...(seriesTicker ? [`kalshi:series:${seriesTicker}`] : []), ...(eventTicker ? [`kalshi:event:${eventTicker}`] : [])])],
      settlementDate: dateOf(m.close_time) ?? dateOf(m.expiration_time),
      closed: status !== "active" && status !== "open",
      resolved,
      outcome: resolved ? (result === "yes" ? 1 : 0) : null,
    };
  }

  private marketsOfEvent(body: Obj, selectors: string[]): VenueMarket[] {
    const event = isObj(body.event) ? body.event : body;
    const nested = arr(event, "markets") ?? arr(body, "markets") ?? [];
    return nested.filter(isObj).map((m) => this.market(m, event, selectors)).filter((m): m is VenueMarket => m !== null);
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
            const body = await this.http.getJson(`${this.apiUrl}/events/${encodeURIComponent(value)}?with_nested_markets=true`);
            if (!isObj(body)) throw new VenueError(`kalshi event ${value}`, "malformed body");
            add(this.marketsOfEvent(body, [selector]));
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
      const body = await this.http.getJson(
        `${this.apiUrl}/events?series_ticker=${encodeURIComponent(series)}&${filter}&with_nested_markets=true&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      if (!isObj(body) || arr(body, "events") === null) throw new VenueError("kalshi /events", "no events list");
      for (const e of arr(body, "events")!.filter(isObj)) add(e);
      cursor = str(body, "cursor") ?? "";
      if (!cursor) break;
    }
  }

  /**
   * Events of the series no longer open for trading, closed (awaiting determination) or settled,
   * with a market closing at `since` or later (`status=closed|settled&min_close_ts=`, one status per
   * request). An event selector needs no such read: `/events/{ticker}` answers whatever its status.
   */
  async closedSince(selectors: readonly string[], since: Date): Promise<{ markets: VenueMarket[]; problems: string[] }> {
    const problems: string[] = [];
    const found = new DiscoveredMarkets();
    const minClose = Math.floor(since.getTime() / 1000);
    await Promise.all(
      selectors.flatMap((selector) => {
        const [, kind, value] = selector.split(":", 3) as [string, string, string];
        if (kind !== "series") return [];
        return ["closed", "settled"].map(async (status) => {
          try {
            await this.seriesEvents(value, `status=${status}&min_close_ts=${minClose}`, (e) => found.add(this.marketsOfEvent(e, [selector])));
          } catch (error) {
            problems.push(`kalshi ${selector} (${status} since ${since.toISOString()}): ${(error as Error).message}`);
          }
        });
      }),
    );
    return { markets: found.list(), problems };
  }

  async event(ticker: string): Promise<VenueEventLegs | null> {
    const body = await this.http.getJson(`${this.apiUrl}/events/${encodeURIComponent(ticker)}?with_nested_markets=true`);
    if (!isObj(body)) return null;
    const event = isObj(body.event) ? body.event : body;
    if (bool(event, "mutually_exclusive") !== true) throw new VenueError(`kalshi event ${ticker}`, "is not mutually exclusive");
    const legs = this.marketsOfEvent(body, []);
    const last = legs.map((l) => l.settlementDate?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return { venue: "kalshi", event: ticker, title: str(event, "title") ?? ticker, legs, settlementDate: last ? new Date(last).toISOString().slice(0, 10) : null };
  }

  /**
   * Held markets discovery no longer lists, one `GET /markets/{ticker}` each: it answers a market
   * whatever its status, settled included. (Kalshi moves markets settled before its historical
   * cutoff to `/historical/markets`; read every hour, a settlement is seen long before that.)
   */
  async lookup(conditionIds: readonly string[]): Promise<VenueMarket[]> {
    const out = await Promise.all(
      conditionIds.map(async (id) => {
        const body = await this.http.getJson(`${this.apiUrl}/markets/${encodeURIComponent(id.replace(/^kalshi:/, ""))}`);
        return isObj(body) && isObj(body.market) ? this.market(body.market, null, []) : null;
      }),
    );
    return out.filter((m): m is VenueMarket => m !== null);
  }

  async books(markets: readonly VenueMarket[]): Promise<BookRead[]> {
    return Promise.all(
      markets.map(async (m): Promise<BookRead> => {
        try {
          const body = await this.http.getJson(`${this.apiUrl}/markets/${encodeURIComponent(m.venueRef)}/orderbook`);
          const sides = kalshiBook(body);
          if (sides === null) return { conditionId: m.conditionId, problem: "malformed order book" };
          const asks = sides.no.map((l) => ({ price: new Decimal(1).minus(l.price), size: l.size }));
          const q = quoteOf(sides.yes, asks);
          return "quote" in q ? { conditionId: m.conditionId, quote: q.quote } : { conditionId: m.conditionId, problem: q.problem };
        } catch (error) {
          return { conditionId: m.conditionId, problem: (error as Error).message };
        }
      }),
    );
  }
}

/** YES and NO bids of either order book shape: `orderbook_fp` (dollar strings) or `orderbook` (cents, or its `*_dollars`). */
export function kalshiBook(body: unknown): { yes: Level[]; no: Level[] } | null {
  if (!isObj(body)) return null;
  const book = isObj(body.orderbook_fp) ? body.orderbook_fp : isObj(body.orderbook) ? body.orderbook : null;
  if (book === null) return null;
  const side = (dollars: string, cents: string): Level[] | null => {
    const d = book[dollars];
    const c = book[cents];
    // An absent or null side is an empty side (Kalshi sends null when nobody bids).
    if (Array.isArray(d)) return levels(d, false);
    if (Array.isArray(c)) return levels(c, true);
    if ((d === undefined || d === null) && (c === undefined || c === null)) return [];
    return null;
  };
  const yes = side("yes_dollars", "yes");
  const no = side("no_dollars", "no");
  return yes && no ? { yes, no } : null;
}

function levels(list: unknown[], cents: boolean): Level[] | null {
  const out: Level[] = [];
  for (const l of list) {
    if (!Array.isArray(l) || l.length < 2) return null;
    const price = decimalOf(l[0]);
    const size = decimalOf(l[1]);
    if (price === null || size === null) return null;
    out.push({ price: cents ? price.dividedBy(100) : price, size });
  }
  return out;
}
