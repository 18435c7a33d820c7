import Decimal from "decimal.js";
import { decimalOf, quoteOf, type Level } from "./book";
import type { z } from "zod";
import type { VenueHttp } from "./http";
import { isVenueError, VenueError } from "./http";
import { arr, bool, chunks, dateOf, encodedArray, isObj, legKeyOf, str, type Obj } from "./read";
import { clobBook, clobBooks, gammaEvent, gammaEventsPage, gammaMarketsPage } from "./schemas";
import { type BookRead, DiscoveredMarkets, type VenueConnector, type VenueEventLegs, type VenueMarket } from "./types";

// Gamma sunset its offset-paged `/events` and `/markets` lists on 2026-05-01 (their answers carried
// `deprecation: true`, `sunset: Fri, 01 May 2026 00:00:00 GMT`, `warning: 299 - "use /markets/keyset"`:
// https://github.com/forecastingresearch/forecastbench/issues/194). Their replacements are the
// keyset lists: items plus `next_cursor`, sent back as `after_cursor`, absent on the last page; no
// `offset` (https://docs.polymarket.com/api-reference/events/list-events-keyset-pagination.md).
// A bug that ignored the cursor and served the first page again was reported before the sunset
// (https://github.com/Polymarket/agents/issues/227): a repeated cursor or page ends the read with
// an error, never a loop.

/** `/events/keyset` serves at most 500 events a page, `/markets/keyset` at most 100 markets. */
export const EVENTS_PAGE = 500;
export const MARKETS_PAGE = 100;
/** A keyset read stops with an error past this many pages (25,000 events of a tag): a runaway pagination must not stall the collector. */
const MAX_PAGES = 50;
/** Condition ids per `/markets/keyset` look-up: at most 100 a request (66 characters each, well under the ~8 KB URL limit). */
export const LOOKUP_BATCH = 100;
/** The Gamma and CLOB endpoints the connector reads, as drift incidents and `venues doctor` name them. */
export const POLY_ENDPOINTS = {
  eventsKeyset: "gamma GET /events/keyset",
  eventBySlug: "gamma GET /events/slug/{slug}",
  marketsKeyset: "gamma GET /markets/keyset",
  books: "clob POST /books",
  book: "clob GET /book",
  pricesHistory: "clob GET /prices-history",
  batchPricesHistory: "clob POST /batch-prices-history",
} as const;
/** Tokens per CLOB `POST /books` (the docs state no maximum; 100 keeps each answer small). */
const BOOKS_BATCH = 100;
/**
 * Outcomes of an augmented neg-risk event (`negRiskAugmented`) that the venue says to ignore:
 * the explicit "Other" (its meaning shrinks as outcomes are named; Gamma marks it `negRiskOther`)
 * and placeholders awaiting a name ("Person A", "Candidate 3"). A placeholder once named reads
 * as an outcome from then on.
 */
const PLACEHOLDER =
  /^(other|(person|candidate|option|player|team|driver|party|country|company|outcome)\s+[a-z0-9]{1,2})$/i;

/**
 * Polymarket: events and markets from the Gamma API (`/events/keyset?tag_slug=`,
 * `/events/slug/{slug}`, `/markets/keyset?condition_ids=`), books of the YES tokens from the CLOB
 * API (`POST /books`).
 */
export class PolymarketConnector implements VenueConnector {
  readonly venue = "polymarket" as const;

  constructor(
    private readonly http: VenueHttp,
    private readonly gammaUrl: string,
    private readonly clobUrl: string,
  ) {}

  /** A Gamma market of an event as our market; null when it lacks what we need to read it or is a placeholder. */
  private market(m: Obj, event: Obj, selectors: string[]): VenueMarket | null {
    const conditionId = str(m, "conditionId");
    const tokens = encodedArray(m.clobTokenIds);
    const yes = tokens?.[0];
    const label = str(m, "question") ?? str(m, "title");
    if (!conditionId || typeof yes !== "string" || !label) return null;
    const group = str(m, "groupItemTitle");
    const augmented = bool(event, "negRiskAugmented") === true || bool(m, "negRiskAugmented") === true;
    if (augmented && (bool(m, "negRiskOther") === true || PLACEHOLDER.test((group ?? "").trim()))) return null;
    const negRisk = bool(event, "negRisk") === true || bool(m, "negRisk") === true;
    const prices = encodedArray(m.outcomePrices)?.map((p) => decimalOf(p)) ?? [];
    const closed = bool(m, "closed") === true;
    const yesPrice = prices[0];
    // Resolved once closed with the winning outcome priced at 1 (and the other at 0).
    const resolved =
      closed &&
      prices.length === 2 &&
      prices.every((p) => p !== null && (p.equals(0) || p.equals(1))) &&
      !prices[0]!.equals(prices[1]!);
    const eventSlug = str(event, "slug") ?? "";
    return {
      venue: "polymarket",
      conditionId,
      venueRef: yes,
      label,
      legKey: negRisk ? legKeyOf(group ?? str(m, "slug") ?? conditionId) : null,
      eventKey: eventSlug,
      selectors,
      settlementDate: dateOf(m.endDate) ?? dateOf(event.endDate),
      closed,
      resolved,
      outcome: resolved ? (yesPrice!.equals(1) ? 1 : 0) : null,
    };
  }

  private selectorsOf(event: Obj, extra: string[]): string[] {
    const tags = (arr(event, "tags") ?? [])
      .filter(isObj)
      .map((t) => str(t, "slug"))
      .filter((s): s is string => s !== null);
    const slug = str(event, "slug");
    return [
      ...new Set([...extra, ...tags.map((t) => `polymarket:tag:${t}`), ...(slug ? [`polymarket:event:${slug}`] : [])]),
    ];
  }

  private marketsOf(event: Obj, extra: string[]): VenueMarket[] {
    const selectors = this.selectorsOf(event, extra);
    return (arr(event, "markets") ?? [])
      .filter(isObj)
      .map((m) => this.market(m, event, selectors))
      .filter((m): m is VenueMarket => m !== null);
  }

  /**
   * Every page of a Gamma keyset list: `after_cursor` is the last page's `next_cursor`, and the
   * read ends on a page without one. A cursor sent twice, or a page identical to the one before,
   * ends it with an error (the cursor-ignored bug): never a loop, never a silent truncation.
   */
  private async keysetPages<P extends { next_cursor?: string | null }>(
    url: string,
    schema: z.ZodType<P>,
    endpoint: string,
    itemsOf: (page: P) => readonly Obj[],
    add: (item: Obj) => void,
  ): Promise<void> {
    const cursors = new Set<string>();
    let previous = "";
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      if (page >= MAX_PAGES) throw new VenueError(url, `more than ${MAX_PAGES} pages: read stopped`);
      const pageUrl: string = `${url}${cursor === null ? "" : `&after_cursor=${encodeURIComponent(cursor)}`}`;
      const body: P = await this.http.read(pageUrl, schema, { endpoint });
      const items = itemsOf(body);
      const fingerprint = JSON.stringify(items.map((i) => str(i, "slug") ?? str(i, "conditionId") ?? str(i, "id")));
      if (page > 0 && items.length > 0 && fingerprint === previous)
        throw new VenueError(pageUrl, "the venue served the same page again (its cursor was ignored): read stopped");
      previous = fingerprint;
      items.forEach(add);
      const next = body.next_cursor ?? null;
      if (!next) return;
      if (cursors.has(next))
        throw new VenueError(
          pageUrl,
          `the venue sent cursor ${JSON.stringify(next.slice(0, 40))} again (its cursor was ignored): read stopped`,
        );
      cursors.add(next);
      cursor = next;
    }
  }

  /**
   * Gamma `/events/keyset` of a tag, every page: `closed` is always sent (its default has differed
   * from the docs: Polymarket/polymarket-cli#71); an event lists all its markets, closed ones
   * included (resolved early).
   */
  private tagEvents(tag: string, filter: string, add: (event: Obj) => void): Promise<void> {
    const url = `${this.gammaUrl}/events/keyset?tag_slug=${encodeURIComponent(tag)}&${filter}&limit=${EVENTS_PAGE}`;
    return this.keysetPages(url, gammaEventsPage, POLY_ENDPOINTS.eventsKeyset, (p) => p.events as Obj[], add);
  }

  async discover(selectors: readonly string[]): Promise<{ markets: VenueMarket[]; problems: string[] }> {
    const problems: string[] = [];
    const found = new DiscoveredMarkets();
    const add = (ms: VenueMarket[]) => found.add(ms);
    await Promise.all(
      selectors.map(async (selector) => {
        const [, kind, value] = selector.split(":", 3) as [string, string, string];
        try {
          if (kind === "tag") {
            let listed = 0;
            await this.tagEvents(value, "closed=false", (e) => {
              const ms = this.marketsOf(e, [selector]);
              listed += ms.length;
              add(ms);
            });
            // A tag the venue lists no open market under is said, never passed over: an index of it would get no level.
            if (listed === 0) problems.push(`polymarket ${selector}: the venue lists no open market under this tag`);
          } else if (kind === "event") {
            const e = await this.eventBody(value);
            if (e) add(this.marketsOf(e, [selector]));
            else problems.push(`polymarket event ${value}: not found`);
          }
        } catch (error) {
          problems.push(`polymarket ${selector}: ${(error as Error).message}`);
        }
      }),
    );
    return { markets: found.list(), problems };
  }

  /**
   * Closed events of the tags whose end date is `since` or later (Gamma `/events?closed=true&
   * end_date_min=`), with their markets. An event selector needs no such read: `/events/slug/`
   * answers an event whatever its state, so `discover` already has its closed markets.
   */
  async closedSince(
    selectors: readonly string[],
    since: Date,
  ): Promise<{ markets: VenueMarket[]; problems: string[] }> {
    const problems: string[] = [];
    const found = new DiscoveredMarkets();
    await Promise.all(
      selectors.map(async (selector) => {
        const [, kind, value] = selector.split(":", 3) as [string, string, string];
        if (kind !== "tag") return;
        try {
          await this.tagEvents(value, `closed=true&end_date_min=${encodeURIComponent(since.toISOString())}`, (e) =>
            found.add(this.marketsOf(e, [selector])),
          );
        } catch (error) {
          problems.push(`polymarket ${selector} (closed since ${since.toISOString()}): ${(error as Error).message}`);
        }
      }),
    );
    return { markets: found.list(), problems };
  }

  /** Gamma `/events/slug/{slug}` answers an event whatever its state, with every market it lists. */
  private async eventBody(slug: string): Promise<Obj | null> {
    const body = await this.http.read(
      `${this.gammaUrl}/events/slug/${encodeURIComponent(slug)}`,
      gammaEvent.nullable(),
      { endpoint: POLY_ENDPOINTS.eventBySlug, notFoundIsAnswer: true },
    );
    return body === null ? null : (body as Obj);
  }

  async event(slug: string): Promise<VenueEventLegs | null> {
    const e = await this.eventBody(slug);
    if (!e) return null;
    if (bool(e, "negRisk") !== true)
      throw new VenueError(`polymarket event ${slug}`, "is not a neg-risk (mutually exclusive) event");
    const legs = this.marketsOf(e, []);
    const last = legs.map((l) => l.settlementDate?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return {
      venue: "polymarket",
      event: slug,
      title: str(e, "title") ?? slug,
      legs,
      settlementDate: last ? new Date(last).toISOString().slice(0, 10) : null,
    };
  }

  /**
   * Current state of held markets that discovery no longer lists (most often: their event closed).
   * Gamma's market lists leave closed markets out unless `closed=true` is sent, and with
   * `closed=true` answer closed ones only (the venue's own SDKs had this bug: Polymarket/py-sdk#130,
   * ts-sdk#180), so ask for closed markets first and for open ones among the rest, from
   * `/markets/keyset`, LOOKUP_BATCH condition ids a request.
   */
  async lookup(conditionIds: readonly string[]): Promise<VenueMarket[]> {
    const found = new Map<string, VenueMarket>();
    for (const closed of [true, false]) {
      const rest = conditionIds.filter((id) => !found.has(id));
      await Promise.all(
        chunks(rest, LOOKUP_BATCH).map(async (batch) => {
          const ids = batch.map((c) => `condition_ids=${encodeURIComponent(c)}`).join("&");
          const url = `${this.gammaUrl}/markets/keyset?${ids}&closed=${closed}&limit=${MARKETS_PAGE}`;
          await this.keysetPages(
            url,
            gammaMarketsPage,
            POLY_ENDPOINTS.marketsKeyset,
            (p) => p.markets as Obj[],
            (m) => {
              const events = (arr(m, "events") ?? []).filter(isObj);
              const v = this.market(m, events[0] ?? {}, []);
              if (v && batch.includes(v.conditionId)) found.set(v.conditionId, v);
            },
          );
        }),
      );
    }
    return [...found.values()];
  }

  /**
   * Books of the YES tokens from CLOB `POST /books` (a list of `{token_id}`), BOOKS_BATCH at a
   * time: answers a list of books, each naming its `asset_id`; a token without a book is left out
   * of the answer, so its market is stale. A batch the venue refuses with a 4xx is read book by
   * book (`GET /book`), so one token it rejects cannot make its neighbours stale.
   */
  async books(markets: readonly VenueMarket[]): Promise<BookRead[]> {
    return (await Promise.all(chunks(markets, BOOKS_BATCH).map((batch) => this.booksBatch(batch)))).flat();
  }

  private async booksBatch(batch: readonly VenueMarket[]): Promise<BookRead[]> {
    let body: unknown;
    try {
      body = await this.http.read(`${this.clobUrl}/books`, clobBooks, {
        post: batch.map((m) => ({ token_id: m.venueRef })),
        endpoint: POLY_ENDPOINTS.books,
      });
    } catch (error) {
      const status = isVenueError(error) ? error.status : null;
      if (status !== null && status >= 400 && status < 500 && status !== 429 && batch.length > 1)
        return Promise.all(batch.map((m) => this.bookOne(m)));
      return batch.map((m) => ({ conditionId: m.conditionId, problem: (error as Error).message }));
    }
    if (!Array.isArray(body))
      return batch.map((m) => ({ conditionId: m.conditionId, problem: "malformed /books answer (not a list)" }));
    const byToken = new Map(body.filter(isObj).map((b) => [str(b, "asset_id") ?? "", b]));
    return batch.map((m) => {
      const book = byToken.get(m.venueRef);
      return book
        ? bookRead(m, book)
        : { conditionId: m.conditionId, problem: "no order book (left out of the /books answer)" };
    });
  }

  private async bookOne(m: VenueMarket): Promise<BookRead> {
    try {
      const url = `${this.clobUrl}/book?token_id=${encodeURIComponent(m.venueRef)}`;
      return bookRead(
        m,
        await this.http.read(url, clobBook, { endpoint: POLY_ENDPOINTS.book, notFoundIsAnswer: true }),
      );
    } catch (error) {
      return { conditionId: m.conditionId, problem: (error as Error).message };
    }
  }
}

/** The quote of one CLOB book (`bids` and `asks` of `{price, size}` decimal strings, in any order). */
function bookRead(m: VenueMarket, body: unknown): BookRead {
  if (!isObj(body)) return { conditionId: m.conditionId, problem: "malformed book" };
  const levels = (side: string): Level[] | null => {
    const list = arr(body, side);
    if (list === null) return null;
    return list
      .filter(isObj)
      .map((l) => ({ price: decimalOf(l.price) ?? new Decimal(-1), size: decimalOf(l.size) ?? new Decimal(0) }));
  };
  const bids = levels("bids");
  const asks = levels("asks");
  if (bids === null || asks === null)
    return { conditionId: m.conditionId, problem: "malformed book (no bids or asks list)" };
  const q = quoteOf(bids, asks);
  return "quote" in q
    ? { conditionId: m.conditionId, quote: q.quote }
    : { conditionId: m.conditionId, problem: q.problem };
}
