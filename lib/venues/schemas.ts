import { z } from "zod";

// The venues' payloads as the connectors rely on them: exactly the fields they read, each of the
// type they read it as; anything else the venues send is let through untouched (loose objects). An
// answer that does not fit is drift (lib/venues/http.ts `parse`): an incident names the venue, the
// endpoint and the JSON path, instead of markets going stale without a reason. Sources:
// - Gamma keyset lists: https://docs.polymarket.com/api-reference/events/list-events-keyset-pagination.md
//   ("Use `next_cursor` from each response as `after_cursor` in the next request. The `offset`
//   parameter is explicitly rejected"); at most 500 events / 100 markets a page and 100
//   `condition_ids` a request (nautilus_polymarket gamma client docs,
//   https://nautilustrader.io/docs/rust-api-latest/nautilus_polymarket/http/gamma/index.html).
// - CLOB `/prices-history`, `/batch-prices-history`, `/books`: DESIGN.md section 6 (Polymarket docs).
// - Kalshi: fixed-point migration (integer cents and counts removed from every response on
//   2026-03-12: https://docs.kalshi.com/getting_started/subpenny_pricing), historical tier
//   (https://docs.kalshi.com/getting_started/historical_data), historical candlesticks
//   (https://docs.kalshi.com/api-reference/historical/get-historical-market-candlesticks: OHLC
//   as dollar strings without the `_dollars` suffix).

const text = z.string();
const opt = <T extends z.ZodType>(t: T) => t.nullish();
/** A decimal as the venues write it: a string ("0.4825") or, in CLOB history, a number. */
const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/, "not a decimal string");

// ---------- Polymarket Gamma ----------

export const gammaMarket = z.looseObject({
  conditionId: text,
  /** a JSON-encoded array [yes token, no token] (or, read tolerantly, an array) */
  clobTokenIds: opt(z.union([text, z.array(text)])),
  question: opt(text),
  groupItemTitle: opt(text),
  slug: opt(text),
  closed: opt(z.boolean()),
  outcomePrices: opt(z.union([text, z.array(z.union([text, z.number()]))])),
  endDate: opt(text),
  negRisk: opt(z.boolean()),
  negRiskOther: opt(z.boolean()),
  negRiskAugmented: opt(z.boolean()),
});

export const gammaEvent = z.looseObject({
  slug: text,
  title: opt(text),
  negRisk: opt(z.boolean()),
  negRiskAugmented: opt(z.boolean()),
  endDate: opt(text),
  closed: opt(z.boolean()),
  tags: opt(z.array(z.looseObject({ slug: opt(text) }))),
  markets: opt(z.array(gammaMarket)),
});

/** `GET /events/keyset`: `{events, next_cursor}`, `next_cursor` absent on the last page. */
export const gammaEventsPage = z.looseObject({ events: z.array(gammaEvent), next_cursor: opt(text) });

/** `GET /markets/keyset`: `{markets, next_cursor}`; each market may list its events. */
export const gammaMarketsPage = z.looseObject({
  markets: z.array(gammaMarket.extend({ events: opt(z.array(gammaEvent.omit({ markets: true }))) })),
  next_cursor: opt(text),
});

// ---------- Polymarket CLOB ----------

const clobLevel = z.looseObject({ price: decimalString, size: decimalString });
export const clobBook = z.looseObject({ asset_id: opt(text), bids: z.array(clobLevel), asks: z.array(clobLevel) });
/** `POST /books`: a list of books, each naming its `asset_id`. */
export const clobBooks = z.array(clobBook.extend({ asset_id: text }));

const historyPoint = z.looseObject({ t: z.number(), p: z.union([z.number(), decimalString]) });
/** `GET /prices-history`: `{history: [{t, p}]}`. */
export const clobHistory = z.looseObject({ history: z.array(historyPoint) });
/** `POST /batch-prices-history`: `{history: {<token id>: [{t, p}]}}`. */
export const clobBatchHistory = z.looseObject({ history: z.record(z.string(), z.array(historyPoint)) });

// ---------- Kalshi ----------

export const kalshiMarket = z.looseObject({
  ticker: text,
  event_ticker: opt(text),
  status: text,
  result: opt(text),
  title: opt(text),
  yes_sub_title: opt(text),
  subtitle: opt(text),
  close_time: opt(text),
  expiration_time: opt(text),
});

export const kalshiEvent = z.looseObject({
  event_ticker: text,
  series_ticker: opt(text),
  title: opt(text),
  mutually_exclusive: opt(z.boolean()),
  markets: opt(z.array(kalshiMarket)),
});

/** `GET /events?series_ticker=…`: `{events, cursor}` (an empty cursor on the last page). */
export const kalshiEventsPage = z.looseObject({ events: z.array(kalshiEvent), cursor: opt(text) });
/** `GET /events/{ticker}?with_nested_markets=true`: the event, its markets nested or beside it. */
export const kalshiEventAnswer = z.looseObject({ event: kalshiEvent, markets: opt(z.array(kalshiMarket)) });
/** `GET /markets/{ticker}` and `GET /historical/markets/{ticker}`. */
export const kalshiMarketAnswer = z.looseObject({ market: kalshiMarket });
/** `GET /historical/markets?series_ticker=…`: `{markets, cursor}`. */
export const kalshiMarketsPage = z.looseObject({ markets: z.array(kalshiMarket), cursor: opt(text) });
/** `GET /historical/cutoff`: `market_settled_ts`, an RFC 3339 time (read as unix seconds too). */
export const kalshiCutoff = z.looseObject({ market_settled_ts: z.union([text, z.number()]) });

const dollarLevels = z.array(z.tuple([decimalString, decimalString]).rest(z.unknown())).nullish();
/** `GET /markets/{ticker}/orderbook`: `orderbook_fp` with `yes_dollars` / `no_dollars` (bids only). */
export const kalshiOrderbook = z.looseObject({
  orderbook_fp: z.looseObject({ yes_dollars: dollarLevels, no_dollars: dollarLevels }),
});

const liveSide = z.looseObject({ close_dollars: decimalString.nullish() });
const liveCandle = z.looseObject({
  end_period_ts: z.number(),
  yes_bid: liveSide.nullish(),
  yes_ask: liveSide.nullish(),
});
/** `GET /series/{series}/markets/{ticker}/candlesticks`: closes as `close_dollars`. */
export const kalshiCandles = z.looseObject({ candlesticks: z.array(liveCandle) });
/** `GET /markets/candlesticks?market_tickers=…` (at most 100 tickers). */
export const kalshiBatchCandles = z.looseObject({
  markets: z.array(z.looseObject({ market_ticker: text, candlesticks: z.array(liveCandle) })),
});
const historicalSide = z.looseObject({ close: decimalString.nullish() });
/** `GET /historical/markets/{ticker}/candlesticks`: closes as dollar strings named `close`. */
export const kalshiHistoricalCandles = z.looseObject({
  candlesticks: z.array(
    z.looseObject({ end_period_ts: z.number(), yes_bid: historicalSide.nullish(), yes_ask: historicalSide.nullish() }),
  ),
});
