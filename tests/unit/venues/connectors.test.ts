import Decimal from "decimal.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { quoteOf } from "@/lib/venues/book";
import { createVenues } from "@/lib/venues/connect";
import { bodyText, retryAfterMs, VenueHttp } from "@/lib/venues/http";
import { KalshiConnector, kalshiBook } from "@/lib/venues/kalshi";
import { PolymarketConnector } from "@/lib/venues/polymarket";
import type { VenueMarket } from "@/lib/venues/types";
import { kalshiBookCents, kalshiBookFp, polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";

let fake: FakeVenues;
let sleeps: number[];
const httpFor = (venue: string, timeoutMs = 2000) =>
  new VenueHttp({ venue, concurrency: 3, timeoutMs, backoffMs: 1, sleep: async (ms) => void sleeps.push(ms) });

beforeEach(async () => {
  fake = await startFakeVenues();
  sleeps = [];
});
afterEach(async () => fake.close());

const d = (s: string) => new Decimal(s);

describe("book quotes", () => {
  test.each([
    [
      "sorted either way, the best bid is the highest and the best ask the lowest",
      [
        ["0.40", "100"],
        ["0.42", "100"],
      ],
      [
        ["0.47", "100"],
        ["0.45", "100"],
      ],
      { bestBid: "0.42", bestAsk: "0.45", mid: "0.435" },
    ],
    ["a crossed book has no quote", [["0.50", "100"]], [["0.48", "100"]], "crossed book (bid 0.5 >= ask 0.48)"],
    ["an empty book has no quote", [], [], "empty book"],
    ["a book without asks has no quote", [["0.30", "100"]], [], "no asks"],
  ])("%s", (_name, bids, asks, expected) => {
    const level = (l: string[]) => ({ price: d(l[0]!), size: d(l[1]!) });
    const q = quoteOf(bids.map(level), asks.map(level));
    if (typeof expected === "string") expect(q).toEqual({ problem: expected });
    else {
      expect("quote" in q).toBe(true);
      if ("quote" in q)
        expect({
          bestBid: q.quote.bestBid.toString(),
          bestAsk: q.quote.bestAsk.toString(),
          mid: q.quote.mid.toString(),
        }).toEqual(expected);
    }
  });

  test("depth counts the USD notional of levels within 0.05 of the mid, both sides", () => {
    const q = quoteOf(
      [
        { price: d("0.40"), size: d("100") },
        { price: d("0.30"), size: d("1000") },
      ],
      [{ price: d("0.44"), size: d("50") }],
    );
    expect("quote" in q && q.quote.depthUsd.toString()).toBe("62");
  });

  test.each([
    ["3", 3000],
    ["0", 0],
    [null, null],
    ["soon", null],
  ])("Retry-After %s reads as %s ms", (value, ms) => expect(retryAfterMs(value)).toBe(ms));
  test("Retry-After as an HTTP date", () =>
    expect(retryAfterMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toUTCString(), Date.UTC(2026, 0, 1))).toBe(5000));
});

const market = (token: string): VenueMarket => ({
  venue: "polymarket",
  conditionId: `0x${token}`,
  venueRef: token,
  label: token,
  legKey: null,
  eventKey: "",
  selectors: [],
  settlementDate: null,
  closed: false,
  resolved: false,
  outcome: null,
});

function polySetup() {
  fake.poly.events.push(
    ...Array.from({ length: 5 }, (_, i) => ({
      slug: `race-${i}`,
      title: `Race ${i}`,
      negRisk: false,
      tags: ["elections"],
      endDate: "2027-01-10T00:00:00Z",
      markets: [
        {
          conditionId: `0xrace${i}`,
          question: `Will candidate ${i} win?`,
          yesToken: `tok-race-${i}`,
          endDate: "2027-01-10T00:00:00Z",
        },
      ],
    })),
    {
      slug: "fed-december",
      title: "Fed decision in December",
      negRisk: true,
      tags: ["economy"],
      endDate: "2026-12-10T00:00:00Z",
      markets: [
        {
          conditionId: "0xcut",
          question: "Will the Fed cut?",
          groupItemTitle: "Cut",
          yesToken: "tok-cut",
          endDate: "2026-12-10T00:00:00Z",
        },
        {
          conditionId: "0xhold",
          question: "Will the Fed hold?",
          groupItemTitle: "Hold",
          yesToken: "tok-hold",
          endDate: "2026-12-10T00:00:00Z",
        },
        {
          conditionId: "0xhike",
          question: "Will the Fed hike?",
          groupItemTitle: "Hike",
          yesToken: "tok-hike",
          endDate: "2026-12-10T00:00:00Z",
        },
      ],
    },
    {
      slug: "old-race",
      title: "Old race",
      negRisk: false,
      tags: ["elections"],
      endDate: "2026-01-01T00:00:00Z",
      closed: true,
      markets: [
        {
          conditionId: "0xold",
          question: "Old?",
          yesToken: "tok-old",
          endDate: "2026-01-01T00:00:00Z",
          closed: true,
          outcomePrices: ["0", "1"],
        },
      ],
    },
  );
  fake.pageSize.gamma = 2;
}

describe("Polymarket connector", () => {
  test("discovery by tag follows the keyset pages, and an event slug gives its neg-risk legs with leg keys", async () => {
    polySetup();
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const { markets, problems } = await pm.discover(["polymarket:tag:elections", "polymarket:event:fed-december"]);
    expect(problems).toEqual([]);
    expect(markets.map((m) => m.conditionId).sort()).toEqual([
      "0xcut",
      "0xhike",
      "0xhold",
      "0xrace0",
      "0xrace1",
      "0xrace2",
      "0xrace3",
      "0xrace4",
    ]);
    const race = markets.find((m) => m.conditionId === "0xrace0")!;
    expect(race).toMatchObject({ venueRef: "tok-race-0", legKey: null, eventKey: "race-0", resolved: false });
    expect(race.selectors).toContain("polymarket:tag:elections");
    const legs = await pm.event("fed-december");
    expect(legs?.legs.map((l) => l.legKey)).toEqual(["cut", "hold", "hike"]);
    expect(legs?.title).toBe("Fed decision in December");
    expect(legs?.settlementDate).toBe("2026-12-10");
  });

  test("keyset pages: a venue serving 2 events a page is read page by page, each page's next_cursor sent back as after_cursor, until a page without one; the sunset offset list is never called", async () => {
    polySetup();
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const { markets } = await pm.discover(["polymarket:tag:elections"]);
    expect(markets).toHaveLength(5);
    const pages = fake.hits.filter((h) => h.startsWith("/gamma/events/keyset?"));
    expect(pages).toHaveLength(3);
    expect(pages[0]).toBe("/gamma/events/keyset?tag_slug=elections&closed=false&limit=500");
    expect(pages.slice(1).every((p) => /&after_cursor=[\w-]+$/.test(p))).toBe(true);
    expect(fake.hits.filter((h) => /^\/gamma\/(events|markets)\?/.test(h) || h.includes("offset="))).toEqual([]);
  });

  test("keyset pages: a cursor the venue ignores (the same page again) ends the read with a clear problem, never a loop", async () => {
    polySetup();
    fake.ignoreCursor.gamma = true;
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const { problems } = await pm.discover(["polymarket:tag:elections"]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^polymarket polymarket:tag:elections: .*the venue served the same page again \(its cursor was ignored\): read stopped$/,
      ),
    ]);
    expect(fake.hits.filter((h) => h.startsWith("/gamma/events/keyset?"))).toHaveLength(2);
  });

  test("a tag the venue lists no open market under is a problem, not a silent empty universe", async () => {
    polySetup();
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const { markets, problems } = await pm.discover(["polymarket:tag:no-such-tag"]);
    expect(markets).toEqual([]);
    expect(problems).toEqual(["polymarket polymarket:tag:no-such-tag: the venue lists no open market under this tag"]);
  });

  test("closed since a date: the tag's closed events ending then or later (end_date_min), which open discovery leaves out", async () => {
    polySetup();
    fake.poly.events.push({
      slug: "recent-race",
      title: "Recent race",
      negRisk: false,
      tags: ["elections"],
      endDate: "2026-10-01T00:00:00Z",
      closed: true,
      markets: [
        {
          conditionId: "0xrecent",
          question: "Recent?",
          yesToken: "tok-recent",
          endDate: "2026-10-01T00:00:00Z",
          closed: true,
          outcomePrices: ["1", "0"],
        },
      ],
    });
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    expect((await pm.discover(["polymarket:tag:elections"])).markets.map((m) => m.conditionId)).not.toContain(
      "0xrecent",
    );
    const { markets, problems } = await pm.closedSince(
      ["polymarket:tag:elections", "polymarket:event:fed-december"],
      new Date("2026-06-01T00:00:00Z"),
    );
    expect(problems).toEqual([]);
    // old-race ended before the date: left out by the venue
    expect(markets.map((m) => [m.conditionId, m.closed, m.resolved, m.outcome])).toEqual([["0xrecent", true, true, 1]]);
    expect(markets[0]!.selectors).toContain("polymarket:tag:elections");
    expect(fake.hits.filter((h) => h.includes("closed=true"))).toEqual([
      `/gamma/events/keyset?tag_slug=elections&closed=true&end_date_min=${encodeURIComponent("2026-06-01T00:00:00.000Z")}&limit=500`,
    ]);
  });

  test("a resolved market reads its outcome; books give quotes, a missing book and a crossed book are stale", async () => {
    polySetup();
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const [old] = await pm.lookup(["0xold"]);
    expect(old).toMatchObject({ resolved: true, outcome: 0, closed: true });
    fake.poly.books.set("tok-race-0", polyBook(0.41, 0.44));
    fake.poly.books.set("tok-race-1", { bids: [{ price: "0.60", size: "10" }], asks: [{ price: "0.55", size: "10" }] });
    const markets = (await pm.discover(["polymarket:tag:elections"])).markets.filter((m) =>
      ["0xrace0", "0xrace1", "0xrace2"].includes(m.conditionId),
    );
    const reads = await pm.books(markets);
    const by = new Map(reads.map((r) => [r.conditionId, r]));
    const q = by.get("0xrace0")!;
    expect("quote" in q && [q.quote.bestBid.toString(), q.quote.bestAsk.toString(), q.quote.mid.toString()]).toEqual([
      "0.41",
      "0.44",
      "0.425",
    ]);
    expect(by.get("0xrace1")).toEqual({ conditionId: "0xrace1", problem: "crossed book (bid 0.6 >= ask 0.55)" });
    expect(by.get("0xrace2")).toEqual({
      conditionId: "0xrace2",
      problem: "no order book (left out of the /books answer)",
    });
    expect(fake.hits.filter((h) => h.startsWith("POST /clob/books"))).toEqual([
      `POST /clob/books ${JSON.stringify(["tok-race-0", "tok-race-1", "tok-race-2"].map((t) => ({ token_id: t })))}`,
    ]);
  });

  test("a held market whose event closed is looked up with closed=true (Gamma leaves closed markets out otherwise); an open one is found too", async () => {
    polySetup();
    const race = fake.poly.events.find((e) => e.slug === "race-0")!;
    Object.assign(race, { closed: true });
    Object.assign(race.markets[0]!, { closed: true, outcomePrices: ["1", "0"] });
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    expect((await pm.discover(["polymarket:tag:elections"])).markets.map((m) => m.conditionId)).not.toContain(
      "0xrace0",
    );
    const byId = new Map((await pm.lookup(["0xrace0", "0xold", "0xrace1", "0xgone"])).map((m) => [m.conditionId, m]));
    expect(byId.get("0xrace0")).toMatchObject({ closed: true, resolved: true, outcome: 1, eventKey: "race-0" });
    expect(byId.get("0xold")).toMatchObject({ closed: true, resolved: true, outcome: 0 });
    expect(byId.get("0xrace1")).toMatchObject({ closed: false, resolved: false });
    expect(byId.has("0xgone")).toBe(false);
    const lookups = fake.hits.filter((h) => h.startsWith("/gamma/markets"));
    expect(lookups).toEqual([
      "/gamma/markets/keyset?condition_ids=0xrace0&condition_ids=0xold&condition_ids=0xrace1&condition_ids=0xgone&closed=true&limit=100",
      "/gamma/markets/keyset?condition_ids=0xrace1&condition_ids=0xgone&closed=false&limit=100",
    ]);
  });

  test("held markets are looked up at most 100 condition ids a request (the keyset list's limit)", async () => {
    polySetup();
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const ids = [...Array.from({ length: 230 }, (_, i) => `0xunknown${i}`), "0xrace1"];
    expect((await pm.lookup(ids)).map((m) => m.conditionId)).toEqual(["0xrace1"]);
    const sizes = fake.hits
      .filter((h) => h.startsWith("/gamma/markets/keyset?"))
      .map((h) => h.split("condition_ids=").length - 1);
    expect(Math.max(...sizes)).toBe(100);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(2 * 231); // closed ones first, then the rest (none was closed) among open ones
  });

  test("books are read in batches of 100 with POST /books, never one GET /book per market", async () => {
    const markets: VenueMarket[] = Array.from({ length: 250 }, (_, i) => market(`tok-${i}`));
    for (const m of markets) fake.poly.books.set(m.venueRef, polyBook(0.3, 0.33));
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const reads = await pm.books(markets);
    expect(reads.filter((r) => "quote" in r)).toHaveLength(250);
    const posts = fake.hits.filter((h) => h.startsWith("POST /clob/books "));
    expect(posts.map((h) => (JSON.parse(h.slice("POST /clob/books ".length)) as unknown[]).length).sort()).toEqual([
      100, 100, 50,
    ]);
    expect(fake.hits.filter((h) => h.startsWith("/clob/book?"))).toEqual([]);
  });

  test("a batch the venue refuses (400) is read book by book, so only the token it rejects is stale", async () => {
    const markets = ["tok-a", "tok-b", "tok-bad"].map(market);
    fake.poly.books.set("tok-a", polyBook(0.3, 0.33));
    fake.poly.books.set("tok-b", polyBook(0.5, 0.52));
    fake.poly.rejected.add("tok-bad");
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    const by = new Map((await pm.books(markets)).map((r) => [r.conditionId, r]));
    expect("quote" in by.get("0xtok-a")! && "quote" in by.get("0xtok-b")!).toBe(true);
    expect(by.get("0xtok-bad")).toMatchObject({ problem: expect.stringContaining("HTTP 400") });
  });

  test("429 with Retry-After is honoured and a 500 retried on a /books batch; a timeout and a malformed body make the batch stale", async () => {
    const pm = new PolymarketConnector(httpFor("polymarket", 1000), fake.gammaUrl, fake.clobUrl);
    const markets = [0, 1, 2, 3].map((i) => market(`tok-race-${i}`));
    for (const m of markets) fake.poly.books.set(m.venueRef, polyBook(0.3, 0.33));
    fake.faults.set("/clob/books", [{ status: 429, retryAfter: "2" }, { status: 500 }]);
    const reads = await pm.books(markets);
    expect(reads.every((r) => "quote" in r)).toBe(true);
    expect(sleeps).toContain(2000);
    expect(fake.hits.filter((h) => h.startsWith("POST /clob/books"))).toHaveLength(3);

    fake.faults.set("/clob/books", [{ delayMs: 4000, times: 4 }]);
    expect(await pm.books(markets)).toEqual(
      markets.map((m) => ({ conditionId: m.conditionId, problem: expect.stringContaining("timed out after 1000 ms") })),
    );
    fake.faults.set("/clob/books", [{ malformed: true }]);
    expect(await pm.books(markets)).toEqual(
      markets.map((m) => ({ conditionId: m.conditionId, problem: expect.stringContaining("malformed body") })),
    );
  });

  test('placeholder outcomes of an augmented neg-risk event ("Other", "Person A") are never legs nor markets; a placeholder once named joins', async () => {
    const m = (id: string, group: string, extra: object = {}) => ({
      conditionId: `0x${id}`,
      question: `Who wins? ${group}`,
      groupItemTitle: group,
      yesToken: `tok-${id}`,
      endDate: "2026-12-10T00:00:00Z",
      ...extra,
    });
    const event = {
      slug: "who-wins",
      title: "Who wins?",
      negRisk: true,
      negRiskAugmented: true,
      tags: ["elections"],
      endDate: "2026-12-10T00:00:00Z",
      markets: [
        m("ann", "Ann"),
        m("bob", "Bob"),
        m("pa", "Person A"),
        m("pb", "Person B"),
        m("other", "Other", { negRiskOther: true }),
      ],
    };
    fake.poly.events.push(event);
    const pm = new PolymarketConnector(httpFor("polymarket"), fake.gammaUrl, fake.clobUrl);
    expect((await pm.event("who-wins"))!.legs.map((l) => l.conditionId)).toEqual(["0xann", "0xbob"]);
    expect((await pm.discover(["polymarket:tag:elections"])).markets.map((x) => x.conditionId)).toEqual([
      "0xann",
      "0xbob",
    ]);
    Object.assign(event.markets[2]!, { groupItemTitle: "Cleo", question: "Who wins? Cleo" });
    expect((await pm.event("who-wins"))!.legs.map((l) => [l.conditionId, l.legKey])).toEqual([
      ["0xann", "ann"],
      ["0xbob", "bob"],
      ["0xpa", "cleo"],
    ]);
    // the same names in an event that is not augmented are outcomes like any other
    event.negRiskAugmented = false;
    expect((await pm.event("who-wins"))!.legs).toHaveLength(5);
  });

  test("a requests-per-second budget holds: N requests at R per second arrive over at least (N-1)/R seconds at the venue", async () => {
    const rps = 4;
    const n = 5;
    // concurrency does not hold them back: without the budget all five would arrive at once
    const http = new VenueHttp({ venue: "polymarket", concurrency: n, rps, timeoutMs: 2000 });
    fake.poly.books.set("tok-x", polyBook(0.3, 0.33));
    const issued = Date.now();
    await Promise.all(Array.from({ length: n }, () => http.getJson(`${fake.clobUrl}/book?token_id=tok-x`)));
    const at = fake.received.map((r) => r.at);
    expect(at).toHaveLength(n);
    // the last one cannot reach the venue before (N-1)/R seconds after they were all issued (same
    // clock, and a delay on the way only makes it later)
    expect(Math.max(...at) - issued).toBeGreaterThanOrEqual(((n - 1) / rps) * 1000);
  });

  test("the clients of one process's venues share its budget: two jobs' requests at R per second together arrive over at least (N-1)/R seconds", async () => {
    const rps = 4;
    const venues = createVenues({
      polymarketGammaUrl: fake.gammaUrl,
      polymarketClobUrl: fake.clobUrl,
      kalshiApiUrl: fake.kalshiUrl,
      concurrency: 8,
      rps: { polymarket: rps },
      timeoutMs: 2000,
    });
    const jobs = [venues.http("polymarket"), venues.http("polymarket", { keepRaw: false })];
    fake.poly.books.set("tok-x", polyBook(0.3, 0.33));
    const issued = Date.now();
    await Promise.all(
      jobs.flatMap((http) => Array.from({ length: 3 }, () => http.getJson(`${fake.clobUrl}/book?token_id=tok-x`))),
    );
    const at = fake.received.map((r) => r.at);
    expect(at).toHaveLength(6);
    expect(Math.max(...at) - issued).toBeGreaterThanOrEqual((5 / rps) * 1000);
    // each job keeps its own count and responses
    expect(jobs.map((h) => [h.requests, h.raw.length])).toEqual([
      [3, 3],
      [3, 0],
    ]);
  });

  test("a Retry-After beyond the run gives up instead of stalling", async () => {
    const http = new VenueHttp({
      venue: "polymarket",
      concurrency: 1,
      timeoutMs: 500,
      maxRetryAfterMs: 1000,
      sleep: async () => {},
    });
    fake.faults.set("/gamma/events/keyset", [{ status: 429, retryAfter: "3600" }]);
    await expect(http.getJson(`${fake.gammaUrl}/events/keyset?tag_slug=x`)).rejects.toThrow(
      /Retry-After 3600 s is beyond this run/,
    );
    expect(http.raw).toHaveLength(1);
    expect(http.raw[0]).toMatchObject({ status: 429 });
  });
});

function kalshiSetup() {
  fake.kalshi.events.push(
    ...Array.from({ length: 3 }, (_, i) => ({
      event_ticker: `KXCPI-26DEC-${i}`,
      series_ticker: "KXCPI",
      title: `CPI above ${i}`,
      mutually_exclusive: false,
      markets: [
        {
          ticker: `KXCPI-26DEC-${i}-T3`,
          title: `CPI above ${i}?`,
          status: "active",
          close_time: "2026-12-12T13:30:00Z",
        },
      ],
    })),
    {
      event_ticker: "KXFEDDECISION-26DEC",
      series_ticker: "KXFEDDECISION",
      title: "Fed decision in December",
      mutually_exclusive: true,
      markets: [
        {
          ticker: "KXFEDDECISION-26DEC-C25",
          title: "Cut 25",
          yes_sub_title: "Cut 25bps",
          status: "active",
          close_time: "2026-12-10T18:00:00Z",
        },
        {
          ticker: "KXFEDDECISION-26DEC-H0",
          title: "Hold",
          yes_sub_title: "Hold",
          status: "active",
          close_time: "2026-12-10T18:00:00Z",
        },
        {
          ticker: "KXFEDDECISION-26DEC-H25",
          title: "Hike",
          yes_sub_title: "Hike 25bps",
          status: "finalized",
          result: "no",
          close_time: "2026-12-10T18:00:00Z",
        },
      ],
    },
  );
  fake.pageSize.kalshi = 2;
}

describe("Kalshi connector", () => {
  test("discovery by series follows the cursor; a mutually exclusive event gives its legs; a settled market its result", async () => {
    kalshiSetup();
    const k = new KalshiConnector(httpFor("kalshi"), fake.kalshiUrl);
    const { markets, problems } = await k.discover(["kalshi:series:KXCPI"]);
    expect(problems).toEqual([]);
    expect(markets.map((m) => m.conditionId).sort()).toEqual([
      "kalshi:KXCPI-26DEC-0-T3",
      "kalshi:KXCPI-26DEC-1-T3",
      "kalshi:KXCPI-26DEC-2-T3",
    ]);
    expect(fake.hits.filter((h) => h.startsWith("/kalshi/events?")).length).toBe(2);
    expect(markets[0]!.selectors).toEqual(
      expect.arrayContaining(["kalshi:series:KXCPI", "kalshi:event:KXCPI-26DEC-0"]),
    );
    const legs = await k.event("KXFEDDECISION-26DEC");
    expect(legs?.legs.map((l) => [l.legKey, l.resolved, l.outcome])).toEqual([
      ["c25", false, null],
      ["h0", false, null],
      ["h25", true, 0],
    ]);
    expect(legs?.legs[0]?.label).toBe("Fed decision in December: Cut 25bps");
  });

  test("a market whose event settled leaves status=open discovery and is read by GET /markets/{ticker}, which answers settled markets", async () => {
    kalshiSetup();
    const settled = fake.kalshi.events.find((e) => e.event_ticker === "KXCPI-26DEC-0")!;
    Object.assign(settled.markets[0]!, { status: "finalized", result: "yes" });
    const k = new KalshiConnector(httpFor("kalshi"), fake.kalshiUrl);
    expect((await k.discover(["kalshi:series:KXCPI"])).markets.map((m) => m.conditionId)).not.toContain(
      "kalshi:KXCPI-26DEC-0-T3",
    );
    expect(await k.lookup(["kalshi:KXCPI-26DEC-0-T3"])).toEqual([
      expect.objectContaining({ conditionId: "kalshi:KXCPI-26DEC-0-T3", closed: true, resolved: true, outcome: 1 }),
    ]);
    expect(fake.hits).toContain("/kalshi/markets/KXCPI-26DEC-0-T3");
  });

  test("closed since a date: the series' closed and settled events with a market closing then or later (min_close_ts)", async () => {
    kalshiSetup();
    fake.kalshi.events.push(
      {
        event_ticker: "KXCPI-26OCT",
        series_ticker: "KXCPI",
        title: "CPI Oct",
        mutually_exclusive: false,
        markets: [
          {
            ticker: "KXCPI-26OCT-T3",
            title: "CPI Oct above 3?",
            status: "settled",
            result: "no",
            close_time: "2026-10-15T12:30:00Z",
          },
        ],
      },
      {
        event_ticker: "KXCPI-26NOV",
        series_ticker: "KXCPI",
        title: "CPI Nov",
        mutually_exclusive: false,
        markets: [
          { ticker: "KXCPI-26NOV-T3", title: "CPI Nov above 3?", status: "closed", close_time: "2026-11-14T12:30:00Z" },
        ],
      },
      {
        event_ticker: "KXCPI-26MAR",
        series_ticker: "KXCPI",
        title: "CPI Mar",
        mutually_exclusive: false,
        markets: [
          {
            ticker: "KXCPI-26MAR-T3",
            title: "CPI Mar above 3?",
            status: "settled",
            result: "yes",
            close_time: "2026-03-12T12:30:00Z",
          },
        ],
      },
    );
    fake.kalshi.cutoff = new Date("2026-09-01T00:00:00Z");
    const k = new KalshiConnector(httpFor("kalshi"), fake.kalshiUrl);
    const since = new Date("2026-06-01T00:00:00Z");
    const { markets, problems } = await k.closedSince(
      ["kalshi:series:KXCPI", "kalshi:event:KXFEDDECISION-26DEC"],
      since,
    );
    expect(problems).toEqual([]);
    expect(markets.map((m) => [m.conditionId, m.closed, m.resolved, m.outcome]).sort()).toEqual([
      ["kalshi:KXCPI-26NOV-T3", true, false, null],
      ["kalshi:KXCPI-26OCT-T3", true, true, 0],
    ]);
    const asked = fake.hits.filter((h) => h.startsWith("/kalshi/events?")).sort();
    expect(asked).toEqual(
      ["closed", "settled"].map(
        (status) =>
          `/kalshi/events?series_ticker=KXCPI&status=${status}&min_close_ts=${since.getTime() / 1000}&with_nested_markets=true&limit=200`,
      ),
    );
  });

  test("closed since a date before the historical cutoff: markets settled before it come from /historical/markets, and a held one is looked up there", async () => {
    kalshiSetup();
    fake.kalshi.events.push(
      {
        event_ticker: "KXCPI-26JUL",
        series_ticker: "KXCPI",
        title: "CPI Jul",
        mutually_exclusive: false,
        markets: [
          {
            ticker: "KXCPI-26JUL-T3",
            title: "CPI Jul above 3?",
            status: "settled",
            result: "yes",
            close_time: "2026-07-15T12:30:00Z",
          },
        ],
      },
      {
        event_ticker: "KXCPI-26MAR",
        series_ticker: "KXCPI",
        title: "CPI Mar",
        mutually_exclusive: false,
        markets: [
          {
            ticker: "KXCPI-26MAR-T3",
            title: "CPI Mar above 3?",
            status: "settled",
            result: "yes",
            close_time: "2026-03-12T12:30:00Z",
          },
        ],
      },
    );
    fake.kalshi.cutoff = new Date("2026-09-01T00:00:00Z");
    const k = new KalshiConnector(httpFor("kalshi"), fake.kalshiUrl);
    // the live tier no longer serves a market settled before the cutoff
    expect(await (await fetch(`${fake.kalshiUrl}/markets/KXCPI-26JUL-T3`)).status).toBe(404);
    const { markets, problems } = await k.closedSince(["kalshi:series:KXCPI"], new Date("2026-06-01T00:00:00Z"));
    expect(problems).toEqual([]);
    // settled in July, before the cutoff: from the historical tier; March ended before the date
    expect(markets.map((m) => [m.conditionId, m.resolved, m.outcome, m.historical ?? false])).toEqual([
      ["kalshi:KXCPI-26JUL-T3", true, 1, true],
    ]);
    expect(markets[0]!.selectors).toEqual(expect.arrayContaining(["kalshi:series:KXCPI"]));
    expect(fake.hits.filter((h) => h.startsWith("/kalshi/historical/"))).toEqual([
      "/kalshi/historical/cutoff",
      "/kalshi/historical/markets?series_ticker=KXCPI&limit=1000",
    ]);
    expect(await k.lookup(["kalshi:KXCPI-26JUL-T3"])).toEqual([
      expect.objectContaining({ conditionId: "kalshi:KXCPI-26JUL-T3", resolved: true, outcome: 1, historical: true }),
    ]);
    // a date after the cutoff needs no historical read
    fake.hits.length = 0;
    await k.closedSince(["kalshi:series:KXCPI"], new Date("2026-10-01T00:00:00Z"));
    expect(fake.hits.filter((h) => h.startsWith("/kalshi/historical/markets"))).toEqual([]);
  });

  test("bids-only books in dollar strings: the YES ask is one minus the best NO bid; the removed integer cents shape is no book and is drift", async () => {
    kalshiSetup();
    fake.kalshi.books.set("KXCPI-26DEC-0-T3", kalshiBookFp(0.35, 0.38));
    // the cents shape Kalshi removed on 2026-03-12 (a venue answering in it again has changed)
    fake.kalshi.books.set("KXCPI-26DEC-1-T3", kalshiBookCents(0.61, 0.64));
    fake.kalshi.books.set("KXCPI-26DEC-2-T3", {
      orderbook_fp: { yes_dollars: [["0.2000", "10.00"]], no_dollars: null },
    });
    const http = httpFor("kalshi");
    const k = new KalshiConnector(http, fake.kalshiUrl);
    const { markets } = await k.discover(["kalshi:series:KXCPI"]);
    const by = new Map((await k.books(markets)).map((r) => [r.conditionId, r]));
    const a = by.get("kalshi:KXCPI-26DEC-0-T3")!;
    expect("quote" in a && [a.quote.bestBid.toString(), a.quote.bestAsk.toString()]).toEqual(["0.35", "0.38"]);
    expect(by.get("kalshi:KXCPI-26DEC-1-T3")).toEqual({
      conditionId: "kalshi:KXCPI-26DEC-1-T3",
      problem: expect.stringContaining("unexpected shape at orderbook_fp"),
    });
    expect(http.drift).toEqual([
      {
        venue: "kalshi",
        endpoint: "kalshi GET /markets/{ticker}/orderbook",
        field: "orderbook_fp",
        detail: expect.stringContaining("unexpected shape"),
      },
    ]);
    expect(by.get("kalshi:KXCPI-26DEC-2-T3")).toEqual({ conditionId: "kalshi:KXCPI-26DEC-2-T3", problem: "no asks" });
  });

  test.each([
    ["a level that is not a pair", { orderbook_fp: { yes_dollars: [["0.3"]], no_dollars: [] } }],
    ["a price that is not a number", { orderbook_fp: { yes_dollars: [["x", "1.00"]], no_dollars: [] } }],
    ["integer cents (removed on 2026-03-12)", { orderbook: { yes: [[35, 900]], no: [] } }],
    ["no book at all", { something: 1 }],
  ])("a malformed order book (%s) reads as none", (_n, body) => expect(kalshiBook(body)).toBeNull());
});

// Rule (lib/venues/http.ts): a body is read as UTF-8, whatever fast path an ASCII body takes.
describe("response bodies", () => {
  test("an ASCII body and a body with other characters read as their UTF-8 text", () => {
    for (const text of [
      '{"history":[{"t":1,"p":0.45}]}',
      '{"title":"Élection présidentielle — 2ᵉ tour","p":"0.5"}',
      "",
    ]) {
      expect(bodyText(Buffer.from(text, "utf8"))).toBe(text);
    }
  });
});
