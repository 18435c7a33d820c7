import http from "node:http";
import type { AddressInfo } from "node:net";

// A local stand-in for the venues' public APIs, answering in their documented shapes as of 2026 and
// leaving out what they leave out: Gamma (events by tag from `/events/keyset`, cursor pages filtered
// on `closed` and `end_date_min`; by slug; markets by condition id from `/markets/keyset`, without
// closed ones unless `closed=true`; the offset lists sunset), the CLOB books (`POST /books`,
// `GET /book`), and the Kalshi trade API v2 (events by series with cursor pages filtered on
// `status` and `min_close_ts`, an event, a market, its order book; the historical tier).
//
// Gamma keyset lists: Polymarket docs, page api-reference/events/list-events-keyset-pagination.md
// (`next_cursor` sent back as `after_cursor`, absent on the last page, `offset` rejected); at most
// 500 events / 100 markets a page, 100 condition ids a request (nautilus_polymarket gamma docs,
// https://nautilustrader.io/docs/rust-api-latest/nautilus_polymarket/http/gamma/index.html). The
// offset lists were sunset on 2026-05-01 and answered with `deprecation`, `sunset` and `warning`
// headers (https://github.com/forecastingresearch/forecastbench/issues/194): here they answer 410,
// or, with `legacy: "deprecated"`, their old shape with those headers.

export interface PolyMarket {
  conditionId: string;
  question: string;
  groupItemTitle?: string;
  yesToken: string;
  endDate: string;
  closed?: boolean;
  /** e.g. ["1", "0"] once resolved YES */
  outcomePrices?: [string, string];
  /** the explicit "Other" outcome of an augmented neg-risk event */
  negRiskOther?: boolean;
}
export interface PolyEvent {
  slug: string;
  title: string;
  negRisk: boolean;
  /** carries placeholder outcomes the venue says to ignore */
  negRiskAugmented?: boolean;
  tags: string[];
  endDate: string;
  closed?: boolean;
  markets: PolyMarket[];
}
export interface KalshiMarket {
  ticker: string;
  title: string;
  yes_sub_title?: string;
  status: string;
  result?: string;
  close_time: string;
}
export interface KalshiEvent {
  event_ticker: string;
  series_ticker: string;
  title: string;
  mutually_exclusive: boolean;
  markets: KalshiMarket[];
}
export interface Fault {
  status?: number;
  retryAfter?: string;
  /** answer after this long (a timeout for a client with a shorter one) */
  delayMs?: number;
  /** a 200 whose body is not JSON */
  malformed?: boolean;
  /** how many requests this fault answers (default 1) */
  times?: number;
}

export interface FakeVenues {
  gammaUrl: string;
  clobUrl: string;
  kalshiUrl: string;
  /** `rejected`: token ids the CLOB refuses with a 400 (a batch naming one is refused whole) */
  poly: { events: PolyEvent[]; books: Map<string, unknown>; rejected: Set<string> };
  /**
   * `cutoff`: the historical tier's `market_settled_ts` (default 90 days ago): a market settled
   * before it is served only by `/historical/markets` and its candlesticks, never by the live
   * endpoints (Kalshi API docs, page getting_started/historical_data)
   */
  kalshi: { events: KalshiEvent[]; books: Map<string, unknown>; cutoff: Date };
  /** price history per Polymarket token and per Kalshi market ticker (see answerHistory) */
  history: VenueHistory;
  /** faults by path prefix (e.g. "/clob/book?token_id=t1"), consumed in order */
  faults: Map<string, Fault[]>;
  /** every request path, in order (a POST as "POST path body") */
  hits: string[];
  /** every request with the time the server received it (ms since the epoch) */
  received: Array<{ at: number; method: string; path: string }>;
  pageSize: { gamma?: number; gammaMarkets?: number; kalshi?: number };
  /** the sunset Gamma offset lists: "gone" (410, the default) or "deprecated" (old shape, deprecation headers) */
  legacy: { gamma: "gone" | "deprecated" };
  /** the cursor-ignored bug (Polymarket/agents#227): every keyset page is the first */
  ignoreCursor: { gamma: boolean };
  /** drift injected by path prefix: headers added to an answer, or its body changed */
  drift: { headers: Map<string, Record<string, string>>; reshape: Map<string, (body: unknown) => unknown> };
  /** what only the discovery endpoints serve (Gamma search, Kalshi series list) */
  discovery: Discovery;
  close(): Promise<void>;
}

const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** The headers Gamma's offset lists carried before their sunset (forecastingresearch/forecastbench#194). */
export const LEGACY_GAMMA_HEADERS = {
  deprecation: "true",
  sunset: "Fri, 01 May 2026 00:00:00 GMT",
  warning: '299 - "use /markets/keyset"',
};

function gammaMarket(m: PolyMarket, e: PolyEvent) {
  return {
    id: m.conditionId.slice(2, 10),
    conditionId: m.conditionId,
    question: m.question,
    slug: m.question.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    groupItemTitle: m.groupItemTitle ?? "",
    clobTokenIds: JSON.stringify([m.yesToken, `${m.yesToken}-no`]),
    outcomes: JSON.stringify(["Yes", "No"]),
    outcomePrices: JSON.stringify(m.outcomePrices ?? ["0.5", "0.5"]),
    endDate: m.endDate,
    closed: m.closed ?? false,
    active: !(m.closed ?? false),
    negRisk: e.negRisk,
    negRiskOther: m.negRiskOther ?? false,
    enableOrderBook: true,
  };
}
function gammaEvent(e: PolyEvent) {
  return {
    id: e.slug,
    slug: e.slug,
    title: e.title,
    negRisk: e.negRisk,
    enableNegRisk: e.negRisk,
    negRiskAugmented: e.negRiskAugmented ?? false,
    endDate: e.endDate,
    closed: e.closed ?? false,
    tags: e.tags.map((t, i) => ({ id: String(i + 1), label: t, slug: t })),
    markets: e.markets.map((m) => gammaMarket(m, e)),
  };
}
// Kalshi markets carry only fixed-point fields since 2026-03-12 (`*_dollars`, `*_fp`; the integer
// cents and counts were removed: Kalshi API docs, page getting_started/subpenny_pricing).
const kalshiMarket = (m: KalshiMarket, e: KalshiEvent) => ({
  ...m,
  event_ticker: e.event_ticker,
  result: m.result ?? "",
  expiration_time: m.close_time,
  yes_bid_dollars: "0.0000",
  yes_ask_dollars: "0.0000",
  last_price_dollars: "0.0000",
  volume_fp: "0.00",
  open_interest_fp: "0.00",
  price_level_structure: "linear_cent",
});
const SETTLED_STATUSES = ["settled", "finalized", "determined"];
/** Settled before the historical cutoff (the fake dates a settlement at the market's close): only the historical tier serves it. */
const isHistorical = (m: KalshiMarket, cutoff: Date) =>
  SETTLED_STATUSES.includes(m.status) && Date.parse(m.close_time) < cutoff.getTime();

export async function startFakeVenues(): Promise<FakeVenues> {
  const state = {
    poly: { events: [] as PolyEvent[], books: new Map<string, unknown>(), rejected: new Set<string>() },
    kalshi: {
      events: [] as KalshiEvent[],
      books: new Map<string, unknown>(),
      cutoff: new Date(Date.now() - 90 * 86_400_000),
    },
    faults: new Map<string, Fault[]>(),
    hits: [] as string[],
    received: [] as Array<{ at: number; method: string; path: string }>,
    pageSize: {} as { gamma?: number; gammaMarkets?: number; kalshi?: number },
    legacy: { gamma: "gone" } as { gamma: "gone" | "deprecated" },
    ignoreCursor: { gamma: false },
    drift: {
      headers: new Map<string, Record<string, string>>(),
      reshape: new Map<string, (body: unknown) => unknown>(),
    },
    history: emptyHistory(),
    discovery: { kalshiSeries: [] } as Discovery,
  };
  const resolvedMarket = (m: PolyMarket) =>
    (m.closed ?? false) && (m.outcomePrices?.join() === "1,0" || m.outcomePrices?.join() === "0,1");
  state.history.resolvedToken = (token) =>
    state.poly.events.some((e) => e.markets.some((m) => m.yesToken === token && resolvedMarket(m)));
  state.history.historicalTicker = (ticker) =>
    state.kalshi.events.some((e) => e.markets.some((m) => m.ticker === ticker && isHistorical(m, state.kalshi.cutoff)));
  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    const method = req.method ?? "GET";
    state.received.push({ at: Date.now(), method, path });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => answer(res, path, method, Buffer.concat(chunks).toString("utf8")));
  });
  const answer = (raw: http.ServerResponse, path: string, method: string, body: string) => {
    // drift a test injects: headers added to the answers of a path, or their body changed
    const extra = [...state.drift.headers.entries()].find(([k]) => path.startsWith(k))?.[1] ?? {};
    const reshape = [...state.drift.reshape.entries()].find(([k]) => path.startsWith(k))?.[1];
    const res = Object.assign(Object.create(raw) as http.ServerResponse, {
      writeHead: (status: number, headers: Record<string, string>) => raw.writeHead(status, { ...headers, ...extra }),
      end: (chunk?: string) => {
        if (!reshape || chunk === undefined) return raw.end(chunk);
        let parsed: unknown;
        try {
          parsed = JSON.parse(chunk);
        } catch {
          return raw.end(chunk);
        }
        return raw.end(JSON.stringify(reshape(parsed)));
      },
    });
    state.hits.push(method === "GET" ? path : `${method} ${path} ${body}`);
    const key = [...state.faults.keys()].find((k) => path.startsWith(k));
    const fault = key ? state.faults.get(key)![0] : undefined;
    if (fault && key) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) state.faults.get(key)!.shift();
      if (fault.delayMs) {
        setTimeout(() => send(res, 200, {}), fault.delayMs).unref();
        return;
      }
      if (fault.malformed) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{ not json");
        return;
      }
      res.writeHead(fault.status ?? 500, {
        "content-type": "application/json",
        ...(fault.retryAfter ? { "retry-after": fault.retryAfter } : {}),
      });
      // Kalshi's 429 carries no Retry-After nor rate-limit headers, and this body (Kalshi API docs, page getting_started/rate_limits)
      res.end(JSON.stringify(fault.status === 429 ? { error: "too many requests" } : { error: "fault" }));
      return;
    }
    const url = new URL(path, "http://fake");
    const p = url.pathname;
    const q = url.searchParams;
    const historical = kalshiHistorical(state.kalshi, p, q, state.history);
    if (historical) return send(res, historical.status, historical.body);
    if (answerHistory(state.history, p, q, (status, answer) => send(res, status, answer), method, body)) return;
    const found = discoveryRoute(state, p, q);
    if (found) return send(res, found.status, found.body);
    const legacy = legacyGamma(state, p, q);
    if (legacy) return send(res, legacy.status, legacy.body, legacy.headers);
    if (p === "/gamma/events/keyset") {
      // at most 500 a page; `offset` rejected; `after_cursor` from the last page's `next_cursor`, absent on the last page.
      // `closed=true` answers closed events only, `closed=false` open ones only; `end_date_min` leaves out events ending before it
      if (q.has("offset")) return send(res, 422, { error: "offset is not supported; use after_cursor" });
      const limit = Math.min(Number(q.get("limit") ?? 20), 500, state.pageSize.gamma ?? 500);
      const closed = q.get("closed") === "true";
      const endMin = q.get("end_date_min");
      const list = state.poly.events.filter(
        (e) =>
          (!q.get("tag_slug") || e.tags.includes(q.get("tag_slug")!)) &&
          (e.closed ?? false) === closed &&
          (!endMin || Date.parse(e.endDate) >= Date.parse(endMin)),
      );
      const start = state.ignoreCursor.gamma ? 0 : cursorIndex(q.get("after_cursor"));
      const next = start + limit < list.length ? { next_cursor: cursorOf(start + limit) } : {};
      return send(res, 200, { events: list.slice(start, start + limit).map(gammaEvent), ...next });
    }
    if (p.startsWith("/gamma/events/slug/")) {
      const e = state.poly.events.find((x) => x.slug === decodeURIComponent(p.slice("/gamma/events/slug/".length)));
      return e ? send(res, 200, gammaEvent(e)) : send(res, 404, { error: "not found" });
    }
    if (p === "/gamma/markets/keyset") {
      // As the venue: closed markets are left out unless `closed=true`, which answers closed ones only;
      // at most 100 a page and 100 condition ids a request.
      if (q.has("offset")) return send(res, 422, { error: "offset is not supported; use after_cursor" });
      const ids = new Set(q.getAll("condition_ids"));
      if (ids.size > 100) return send(res, 422, { error: "at most 100 condition_ids" });
      const closed = q.get("closed") === "true";
      const limit = Math.min(Number(q.get("limit") ?? 20), 100, state.pageSize.gammaMarkets ?? 100);
      const out = state.poly.events.flatMap((e) =>
        e.markets
          .filter((m) => ids.has(m.conditionId) && (m.closed ?? false) === closed)
          .map((m) => ({ ...gammaMarket(m, e), events: [{ ...gammaEvent(e), markets: undefined }] })),
      );
      const start = state.ignoreCursor.gamma ? 0 : cursorIndex(q.get("after_cursor"));
      const next = start + limit < out.length ? { next_cursor: cursorOf(start + limit) } : {};
      return send(res, 200, { markets: out.slice(start, start + limit), ...next });
    }
    if (p === "/clob/books" && method === "POST") {
      // a list of {token_id}; answers the books found, each naming its asset_id, and leaves the rest out
      let asked: unknown;
      try {
        asked = JSON.parse(body);
      } catch {
        return send(res, 400, { error: "Invalid payload" });
      }
      if (!Array.isArray(asked)) return send(res, 400, { error: "Invalid payload" });
      const tokens = asked.map((t) => (t as { token_id?: unknown }).token_id);
      if (tokens.some((t) => typeof t !== "string" || state.poly.rejected.has(t)))
        return send(res, 400, { error: "Invalid token id" });
      return send(
        res,
        200,
        (tokens as string[]).flatMap((t) => {
          const book = state.poly.books.get(t);
          return book ? [{ ...(book as object), asset_id: t }] : [];
        }),
      );
    }
    if (p === "/clob/book") {
      if (state.poly.rejected.has(q.get("token_id") ?? "")) return send(res, 400, { error: "Invalid token id" });
      const book = state.poly.books.get(q.get("token_id") ?? "");
      return book ? send(res, 200, book) : send(res, 404, { error: "No orderbook exists for the requested token id" });
    }
    if (p === "/kalshi/events") {
      const limit = Math.min(Number(q.get("limit") ?? 100), state.pageSize.kalshi ?? 200);
      const start = Number(q.get("cursor") || 0);
      // no `status`: every event; `open`: those with a market open for trading; `settled`: those
      // whose markets all settled; `closed`: the others; `min_close_ts`: with a market closing then or later
      // markets settled before the historical cutoff are no longer nested: the live tier does not serve them
      const live = (e: KalshiEvent) => e.markets.filter((m) => !isHistorical(m, state.kalshi.cutoff));
      const open = (e: KalshiEvent) => e.markets.some((m) => m.status === "active");
      const settled = (e: KalshiEvent) => e.markets.every((m) => SETTLED_STATUSES.includes(m.status));
      const stateOf = (e: KalshiEvent) => (open(e) ? "open" : settled(e) ? "settled" : "closed");
      const status = q.get("status");
      const minClose = q.get("min_close_ts");
      const list = state.kalshi.events.filter(
        (e) =>
          e.series_ticker === q.get("series_ticker") &&
          (!status || stateOf(e) === status) &&
          (!minClose || live(e).some((m) => Date.parse(m.close_time) / 1000 >= Number(minClose))),
      );
      const page = list
        .slice(start, start + limit)
        .map((e) => ({ ...e, markets: live(e).map((m) => kalshiMarket(m, e)) }));
      return send(res, 200, { events: page, cursor: start + limit < list.length ? String(start + limit) : "" });
    }
    const ev = /^\/kalshi\/events\/([^/]+)$/.exec(p);
    if (ev) {
      const e = state.kalshi.events.find((x) => x.event_ticker === decodeURIComponent(ev[1]!));
      if (!e) return send(res, 404, { error: { code: "not_found" } });
      const { markets, ...event } = e;
      return send(res, 200, {
        event,
        markets: markets.filter((m) => !isHistorical(m, state.kalshi.cutoff)).map((m) => kalshiMarket(m, e)),
      });
    }
    const book = /^\/kalshi\/markets\/([^/]+)\/orderbook$/.exec(p);
    if (book) {
      const b = state.kalshi.books.get(decodeURIComponent(book[1]!));
      return b ? send(res, 200, b) : send(res, 404, { error: { code: "not_found" } });
    }
    const mk = /^\/kalshi\/markets\/([^/]+)$/.exec(p);
    if (mk) {
      for (const e of state.kalshi.events)
        for (const m of e.markets)
          if (m.ticker === decodeURIComponent(mk[1]!) && !isHistorical(m, state.kalshi.cutoff))
            return send(res, 200, { market: kalshiMarket(m, e) });
      return send(res, 404, { error: { code: "not_found" } });
    }
    send(res, 404, { error: "no route" });
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...state,
    gammaUrl: `${base}/gamma`,
    clobUrl: `${base}/clob`,
    kalshiUrl: `${base}/kalshi`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Kalshi's historical tier: `GET /historical/cutoff`, `GET /historical/markets` (by `series_ticker`,
 * `event_ticker` or `tickers`; cursor pages of at most 1,000), `GET /historical/markets/{ticker}`
 * and its candlesticks; each serves only markets settled before the cutoff
 * (Kalshi API docs, page getting_started/historical_data).
 */
function kalshiHistorical(
  kalshi: { events: KalshiEvent[]; cutoff: Date },
  p: string,
  q: URLSearchParams,
  history?: VenueHistory,
): { status: number; body: unknown } | null {
  if (!p.startsWith("/kalshi/historical/")) return null;
  const cutoff = kalshi.cutoff;
  if (p === "/kalshi/historical/cutoff")
    return {
      status: 200,
      body: {
        market_settled_ts: cutoff.toISOString(),
        trades_created_ts: cutoff.toISOString(),
        orders_updated_ts: cutoff.toISOString(),
      },
    };
  const all = kalshi.events.flatMap((e) => e.markets.filter((m) => isHistorical(m, cutoff)).map((m) => ({ m, e })));
  if (p === "/kalshi/historical/markets") {
    const tickers = (q.get("tickers") ?? "").split(",").filter(Boolean);
    const list = all.filter(
      ({ m, e }) =>
        (!q.get("series_ticker") || e.series_ticker === q.get("series_ticker")) &&
        (!q.get("event_ticker") || e.event_ticker === q.get("event_ticker")) &&
        (tickers.length === 0 || tickers.includes(m.ticker)),
    );
    const limit = Math.min(Number(q.get("limit") ?? 100), 1000);
    const start = Number(q.get("cursor") || 0);
    return {
      status: 200,
      body: {
        markets: list.slice(start, start + limit).map(({ m, e }) => kalshiMarket(m, e)),
        cursor: start + limit < list.length ? String(start + limit) : "",
      },
    };
  }
  const one = /^\/kalshi\/historical\/markets\/([^/]+)(\/candlesticks)?$/.exec(p);
  const found = one && all.find(({ m }) => m.ticker === decodeURIComponent(one[1]!));
  if (!one || !found) return { status: 404, body: { error: { code: "not_found" } } };
  if (!one[2]) return { status: 200, body: { market: kalshiMarket(found.m, found.e) } };
  const start = Number(q.get("start_ts"));
  const end = Number(q.get("end_ts"));
  if (!["1", "60", "1440"].includes(q.get("period_interval") ?? "") || !Number.isFinite(start) || !Number.isFinite(end))
    return { status: 400, body: { error: { code: "invalid_parameters" } } };
  const list = (history?.kalshi.get(found.m.ticker) ?? []).filter((x) => x.t >= start && x.t <= end);
  return { status: 200, body: { ticker: found.m.ticker, candlesticks: list.map(historicalCandle) } };
}

/** An opaque keyset cursor (the venue's are base64 of a position) and its position. */
const cursorOf = (i: number) => Buffer.from(`pos:${i}`).toString("base64url");
const cursorIndex = (c: string | null) =>
  c ? Number(Buffer.from(c, "base64url").toString("utf8").replace(/^pos:/, "")) || 0 : 0;

/** Gamma's sunset offset lists: 410, or (`legacy: "deprecated"`) the old shape with the deprecation headers. */
function legacyGamma(
  state: { poly: { events: PolyEvent[] }; legacy: { gamma: "gone" | "deprecated" } },
  p: string,
  q: URLSearchParams,
): { status: number; body: unknown; headers: Record<string, string> } | null {
  if (p !== "/gamma/events" && p !== "/gamma/markets") return null;
  if (state.legacy.gamma === "gone")
    return {
      status: 410,
      body: { error: `${p.slice(6)} was sunset on 2026-05-01; use ${p.slice(6)}/keyset` },
      headers: LEGACY_GAMMA_HEADERS,
    };
  const offset = Number(q.get("offset") ?? 0);
  const limit = Number(q.get("limit") ?? 20);
  const closed = q.get("closed") === "true";
  const events = state.poly.events.filter(
    (e) => (!q.get("tag_slug") || e.tags.includes(q.get("tag_slug")!)) && (e.closed ?? false) === closed,
  );
  const body =
    p === "/gamma/events" ? events.map(gammaEvent) : events.flatMap((e) => e.markets.map((m) => gammaMarket(m, e)));
  return { status: 200, body: body.slice(offset, offset + limit), headers: LEGACY_GAMMA_HEADERS };
}

/** A CLOB book around a price: bids ascending and asks descending, as the docs describe. */
export function polyBook(bid: number, ask: number, size = 1000) {
  return {
    market: "0x",
    asset_id: "t",
    bids: [
      { price: (bid - 0.02).toFixed(2), size: String(size) },
      { price: bid.toFixed(2), size: String(size) },
    ],
    asks: [
      { price: (ask + 0.02).toFixed(2), size: String(size) },
      { price: ask.toFixed(2), size: String(size) },
    ],
    hash: "h",
    timestamp: "0",
  };
}

/** A Kalshi book of bids only: YES bids at `yesBid`, NO bids at 1 - `yesAsk`; the newer dollar shape. */
export function kalshiBookFp(yesBid: number, yesAsk: number, size = 500) {
  return {
    orderbook_fp: {
      yes_dollars: [
        [(yesBid - 0.01).toFixed(4), `${size}.00`],
        [yesBid.toFixed(4), `${size}.00`],
      ],
      no_dollars: [[(1 - yesAsk).toFixed(4), `${size}.00`]],
    },
  };
}

/** The older cents shape, levels in descending order. */
export function kalshiBookCents(yesBid: number, yesAsk: number, size = 500) {
  return {
    orderbook: {
      yes: [
        [Math.round(yesBid * 100), size],
        [Math.round(yesBid * 100) - 2, size],
      ],
      no: [[Math.round((1 - yesAsk) * 100), size]],
    },
  };
}

// ---------- price history (back-calculation and gap filling) ----------

/** One hourly price of a market's history, as the local venues serve it. */
export interface HistoryPrice {
  /** unix seconds */
  t: number;
  bid: number;
  ask: number;
}
export interface VenueHistory {
  /** by Polymarket YES token id: served as `{history: [{t, p}]}` with p the mid */
  poly: Map<string, HistoryPrice[]>;
  /** by Kalshi market ticker: served as hourly candlesticks ending at t */
  kalshi: Map<string, HistoryPrice[]>;
  /** computes a history on request instead (large benchmarks), given the venue, token or ticker, and span */
  generate?: (venue: "poly" | "kalshi", key: string, start: number, end: number) => HistoryPrice[] | undefined;
  /** refuse the batch forms with a 400 (a venue or proxy that does not take them) */
  refuseBatch?: boolean;
  /** Polymarket tokens of resolved markets: their history has nothing finer than 12 hours (set by startFakeVenues) */
  resolvedToken?: (token: string) => boolean;
  /** Kalshi tickers settled before the historical cutoff: only the historical candlesticks serve them (set by startFakeVenues) */
  historicalTicker?: (ticker: string) => boolean;
}
export const emptyHistory = (): VenueHistory => ({ poly: new Map(), kalshi: new Map() });

const dollars = (x: number) => x.toFixed(4);
// Live candlesticks carry the OHLC of the YES bid and ask as `*_dollars` strings only (the integer
// cents were removed on 2026-03-12: Kalshi API docs, page getting_started/subpenny_pricing); the
// historical ones name the same dollar strings without the suffix
// (Kalshi API docs, page api-reference/historical/get-historical-market-candlesticks).
const side = (x: number) => ({
  open_dollars: dollars(x),
  low_dollars: dollars(x),
  high_dollars: dollars(x),
  close_dollars: dollars(x),
});
const historicalSide = (x: number) => ({ open: dollars(x), low: dollars(x), high: dollars(x), close: dollars(x) });
export const historicalCandle = (x: HistoryPrice) => ({
  end_period_ts: x.t,
  yes_bid: historicalSide(x.bid),
  yes_ask: historicalSide(x.ask),
  price: {},
  volume: "0.00",
  open_interest: "0.00",
});
/** Polymarket's points for a resolved market: 12-hour ones only (t a multiple of 12 hours). */
const TWELVE_HOURS = 43_200;

/**
 * CLOB `GET /prices-history?market&startTs&endTs&fidelity` and `POST /batch-prices-history`, Kalshi
 * `GET /markets/candlesticks?market_tickers&…` and
 * `GET /series/{series}/markets/{ticker}/candlesticks?start_ts&end_ts&period_interval`, in the
 * venues' documented shapes; true when the request was one of them.
 */
export function answerHistory(
  history: VenueHistory,
  p: string,
  q: URLSearchParams,
  send: (status: number, body: unknown) => void,
  method = "GET",
  body = "",
): boolean {
  // A resolved market's history has nothing finer than 12 hours: empty at a finer fidelity, its
  // 12-hour points at 720 (https://github.com/Polymarket/py-clob-client/issues/216). p is the mid,
  // to four decimals (a 0.0025 tick: Polymarket docs, page changelog.md, 2026-07-02).
  const polyPoints = (market: string, start: number, end: number, fidelity: number) => {
    const resolved = history.resolvedToken?.(market) === true;
    if (resolved && fidelity < 720) return [];
    return (history.poly.get(market) ?? history.generate?.("poly", market, start, end) ?? [])
      .filter((x) => x.t >= start && x.t <= end && (!resolved || x.t % TWELVE_HOURS === 0))
      .map((x) => ({ t: x.t, p: Number(((x.bid + x.ask) / 2).toFixed(4)) }));
  };
  const live = (ticker: string) => history.historicalTicker?.(ticker) !== true;
  const candle = (x: HistoryPrice) => ({
    end_period_ts: x.t,
    yes_bid: side(x.bid),
    yes_ask: side(x.ask),
    price: {},
    volume_fp: "0.00",
    open_interest_fp: "0.00",
  });
  if (p === "/clob/batch-prices-history" && method === "POST") {
    // `{markets: [token ids, at most 20], start_ts, end_ts, fidelity}` -> `{history: {<token id>: [{t, p}]}}`
    let asked: { markets?: unknown; start_ts?: unknown; end_ts?: unknown; fidelity?: unknown };
    try {
      asked = JSON.parse(body) as typeof asked;
    } catch {
      send(400, { error: "invalid payload" });
      return true;
    }
    const markets = asked.markets;
    const start = Number(asked.start_ts);
    const end = Number(asked.end_ts);
    if (
      history.refuseBatch ||
      !Array.isArray(markets) ||
      markets.length === 0 ||
      markets.length > 20 ||
      markets.some((m) => typeof m !== "string") ||
      !Number.isFinite(start) ||
      !Number.isFinite(end) ||
      end < start
    ) {
      send(400, { error: "invalid filters" });
      return true;
    }
    send(200, {
      history: Object.fromEntries(
        (markets as string[]).map((m) => [m, polyPoints(m, start, end, Number(asked.fidelity ?? 1))]),
      ),
    });
    return true;
  }
  if (p === "/kalshi/markets/candlesticks") {
    // `market_tickers` (comma-separated, at most 100), at most 10,000 candles in all -> `{markets: [{market_ticker, candlesticks}]}`, unknown tickers left out
    const tickers = (q.get("market_tickers") ?? "").split(",").filter(Boolean);
    const start = Number(q.get("start_ts"));
    const end = Number(q.get("end_ts"));
    const lists = tickers.map(
      (t) =>
        [
          t,
          live(t)
            ? (history.kalshi.get(t) ?? history.generate?.("kalshi", t, start, end))?.filter(
                (x) => x.t >= start && x.t <= end,
              )
            : undefined,
        ] as const,
    );
    const candles = lists.reduce((n, [, l]) => n + (l?.length ?? 0), 0);
    if (
      history.refuseBatch ||
      tickers.length === 0 ||
      tickers.length > 100 ||
      candles > 10_000 ||
      q.get("period_interval") !== "60" ||
      !Number.isFinite(start) ||
      !Number.isFinite(end)
    ) {
      send(400, {
        error: {
          code: "invalid_parameters",
          message:
            "market_tickers (at most 100), start_ts, end_ts and period_interval are required; at most 10,000 candlesticks",
        },
      });
      return true;
    }
    send(200, {
      markets: lists
        .filter(([, l]) => l !== undefined)
        .map(([t, l]) => ({ market_ticker: t, candlesticks: l!.map(candle) })),
    });
    return true;
  }
  if (p === "/clob/prices-history") {
    const market = q.get("market") ?? "";
    const start = Number(q.get("startTs"));
    const end = Number(q.get("endTs"));
    if (!market || !Number.isFinite(start) || !Number.isFinite(end) || end < start) {
      send(400, { error: "invalid filters" });
      return true;
    }
    send(200, { history: polyPoints(market, start, end, Number(q.get("fidelity") ?? 1)) });
    return true;
  }
  const candles = /^\/kalshi\/series\/([^/]+)\/markets\/([^/]+)\/candlesticks$/.exec(p);
  if (candles) {
    const ticker = decodeURIComponent(candles[2]!);
    const start = Number(q.get("start_ts"));
    const end = Number(q.get("end_ts"));
    if (q.get("period_interval") !== "60" && q.get("period_interval") !== "1" && q.get("period_interval") !== "1440") {
      send(400, { error: { code: "invalid_parameters", message: "period_interval must be 1, 60 or 1440" } });
      return true;
    }
    const list = live(ticker)
      ? (history.kalshi.get(ticker) ?? history.generate?.("kalshi", ticker, start, end))
      : undefined;
    if (!list) {
      send(404, { error: { code: "not_found" } });
      return true;
    }
    send(200, {
      ticker,
      candlesticks: list.filter((x) => x.t >= start && x.t <= end).map(candle),
    });
    return true;
  }
  return false;
}

// Discovery: Gamma `/public-search` (events, tags; page-numbered with `pagination.hasMore`) and
// Kalshi `/series` (the whole list, optional cursor), in the shapes the venues document.

export interface KalshiSeries {
  ticker: string;
  title: string;
  category: string;
  tags: string[];
  frequency?: string;
}
export interface Discovery {
  kalshiSeries: KalshiSeries[];
  /** series per page of `/series`; unset: the whole list in one answer, as the venue does */
  kalshiSeriesPage?: number;
  /** answer searches with events that do not list their markets (a lighter payload) */
  searchWithoutMarkets?: boolean;
}

const words = (q: string) => q.toLowerCase().split(/\s+/).filter(Boolean);
const hasAll = (text: string, ws: string[]) => ws.every((w) => text.toLowerCase().includes(w));

function discoveryRoute(
  state: { poly: { events: PolyEvent[] }; kalshi: { events: KalshiEvent[] }; discovery: Discovery },
  p: string,
  q: URLSearchParams,
): { status: number; body: unknown } | null {
  if (p === "/gamma/public-search") {
    const ws = words(q.get("q") ?? "");
    if (ws.length === 0) return { status: 422, body: { error: "q is required" } };
    const perType = Number(q.get("limit_per_type") ?? 10);
    const page = Math.max(1, Number(q.get("page") ?? 1));
    const active = q.get("events_status") === "active";
    const keepClosed = q.get("keep_closed_markets") === "1";
    const events = state.poly.events
      .filter((e) => hasAll(`${e.title} ${e.slug}`, ws) && (!active || !e.closed))
      .map((e) => ({
        ...gammaEvent(e),
        markets: state.discovery.searchWithoutMarkets
          ? undefined
          : e.markets.filter((m) => keepClosed || !m.closed).map((m) => gammaMarket(m, e)),
      }));
    const tagSlugs = [...new Set(state.poly.events.flatMap((e) => e.tags))].filter((t) => hasAll(t, ws));
    const tags =
      q.get("search_tags") === "false" ? [] : tagSlugs.map((t, i) => ({ id: String(100 + i), label: t, slug: t }));
    const from = (page - 1) * perType;
    return {
      status: 200,
      body: {
        events: events.slice(from, from + perType),
        tags: tags.slice(from, from + perType),
        pagination: {
          hasMore: from + perType < Math.max(events.length, tags.length),
          totalResults: events.length + tags.length,
        },
      },
    };
  }
  if (p === "/kalshi/series") {
    const list = state.discovery.kalshiSeries.filter((s) => !q.get("category") || s.category === q.get("category"));
    const size = state.discovery.kalshiSeriesPage ?? list.length;
    const start = Number(q.get("cursor") || 0);
    const page = list.slice(start, start + size).map((s) => ({
      frequency: "custom",
      settlement_sources: [],
      contract_url: "",
      fee_type: "quadratic",
      fee_multiplier: 1,
      ...s,
    }));
    return {
      status: 200,
      body: { series: page, ...(start + size < list.length ? { cursor: String(start + size) } : {}) },
    };
  }
  return null;
}
