import Decimal from "decimal.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { VenueHttp } from "@/lib/venues/http";
import {
  coarsePoints,
  historyWindows,
  hourlyPoints,
  readHistory,
  readKalshiCandles,
  readPolymarketHistory,
  HISTORY_WINDOW_MS,
} from "@/lib/venues/price-history";
import { startFakeVenues, type FakeVenues } from "../../support/fake-venues";

let fake: FakeVenues;
beforeEach(async () => {
  fake = await startFakeVenues();
});
afterEach(async () => fake.close());

const HOUR = 3_600_000;
const base = Date.UTC(2026, 9, 1);
const sec = (ms: number) => ms / 1000;
const http = () =>
  new VenueHttp({ venue: "test", concurrency: 4, timeoutMs: 2000, backoffMs: 1, sleep: async () => {} });
const urls = () => ({ polymarketClobUrl: fake.clobUrl, kalshiApiUrl: fake.kalshiUrl });
const d = (s: string) => new Decimal(s);

describe("hourly points from a venue's history", () => {
  test.each([
    ["a price at the hour stands for that hour", [[base, "0.4"]], [[base, "0.4"]]],
    ["a price within an hour stands for the hour ending after it", [[base + 60_000, "0.4"]], [[base + HOUR, "0.4"]]],
    [
      "the last price of the hour wins",
      [
        [base + 60_000, "0.4"],
        [base + 120_000, "0.45"],
      ],
      [[base + HOUR, "0.45"]],
    ],
    [
      "an hour without a price has no point",
      [
        [base, "0.4"],
        [base + 3 * HOUR, "0.5"],
      ],
      [
        [base, "0.4"],
        [base + 3 * HOUR, "0.5"],
      ],
    ],
    [
      "prices outside the span are left out",
      [
        [base - 2 * HOUR, "0.4"],
        [base + 30 * HOUR, "0.5"],
      ],
      [],
    ],
  ] as Array<[string, Array<[number, string]>, Array<[number, string]>]>)("%s", (_name, raw, expected) => {
    const points = hourlyPoints(
      raw.map(([at, p]) => ({ at, bid: d(p), ask: d(p) })),
      new Date(base),
      new Date(base + 24 * HOUR),
    );
    expect(points.map((x) => [x.t.getTime(), x.mid.toString()])).toEqual(expected);
  });

  test("the mid is halfway between the bid and the ask", () => {
    const [p] = hourlyPoints([{ at: base, bid: d("0.41"), ask: d("0.44") }], new Date(base), new Date(base));
    expect([p!.bestBid.toString(), p!.bestAsk.toString(), p!.mid.toString()]).toEqual(["0.41", "0.44", "0.425"]);
  });

  test("windows cover the span without overlap and none is longer than the limit", () => {
    const from = new Date(base);
    const until = new Date(base + 90 * 24 * HOUR);
    const w = historyWindows(from, until);
    expect(w[0]!.start).toBe(sec(base));
    expect(w.at(-1)!.end).toBe(sec(until.getTime()));
    for (let i = 1; i < w.length; i++) expect(w[i]!.start).toBe(w[i - 1]!.end + 1);
    for (const x of w) expect((x.end - x.start) * 1000).toBeLessThan(HISTORY_WINDOW_MS);
  });
});

describe("venue shapes", () => {
  test("Polymarket points outside [0, 1] or without a time are skipped; a body without a history list is refused", () => {
    expect(
      readPolymarketHistory({ history: [{ t: 1, p: 0.5 }, { t: 2, p: 1.5 }, { p: 0.3 }] }, "u").map((x) =>
        x.bid.toString(),
      ),
    ).toEqual(["0.5"]);
    expect(() => readPolymarketHistory({ error: "x" }, "u")).toThrow(/no history list/);
  });

  test("Kalshi candles read the YES bid and ask closes as dollar strings only (integer cents were removed); a candle without both sides is skipped", () => {
    const got = readKalshiCandles(
      {
        candlesticks: [
          { end_period_ts: 10, yes_bid: { close_dollars: "0.3100" }, yes_ask: { close_dollars: "0.3500" } },
          { end_period_ts: 20, yes_bid: { close: 40 }, yes_ask: { close: 44 } },
          { end_period_ts: 30, yes_bid: {}, yes_ask: { close_dollars: "0.3500" } },
          { end_period_ts: 40, yes_bid: { close_dollars: "0.6000" }, yes_ask: { close_dollars: "0.5000" } },
        ],
      },
      "u",
    );
    expect(got.map((x) => [x.at, x.bid.toString(), x.ask.toString()])).toEqual([[10_000, "0.31", "0.35"]]);
  });

  test("Kalshi historical candles name their dollar strings `close` (no `_dollars` suffix)", () => {
    const got = readKalshiCandles(
      {
        candlesticks: [
          { end_period_ts: 10, yes_bid: { close: "0.3125" }, yes_ask: { close: "0.3350" } },
          { end_period_ts: 20, yes_bid: { close: null }, yes_ask: { close: "0.3" } },
        ],
      },
      "u",
      true,
    );
    expect(got.map((x) => [x.at, x.bid.toString(), x.ask.toString()])).toEqual([[10_000, "0.3125", "0.335"]]);
  });
});

describe("readHistory through the venues' HTTP API", () => {
  test("reads both venues over several windows, hour by hour", async () => {
    const hours = Array.from({ length: 40 * 24 }, (_, i) => base + i * HOUR);
    fake.history.poly.set(
      "tok-1",
      hours.map((t, i) => ({ t: sec(t), bid: 0.4 + (i % 10) / 100, ask: 0.4 + (i % 10) / 100 })),
    );
    fake.history.kalshi.set(
      "KXCPI-26-T3",
      hours.map((t) => ({ t: sec(t), bid: 0.3, ask: 0.34 })),
    );
    const reads = await readHistory(
      http(),
      urls(),
      [
        { venue: "polymarket", conditionId: "0xa", venueRef: "tok-1" },
        { venue: "kalshi", conditionId: "kalshi:KXCPI-26-T3", venueRef: "KXCPI-26-T3", series: "KXCPI" },
      ],
      new Date(base),
      new Date(hours.at(-1)!),
    );
    const [poly, kalshi] = reads as Array<{
      conditionId: string;
      points: Array<{ t: Date; mid: Decimal; bestBid: Decimal; bestAsk: Decimal }>;
    }>;
    expect(poly!.points).toHaveLength(hours.length);
    expect(poly!.points[13]!.mid.toString()).toBe("0.43");
    expect(kalshi!.points).toHaveLength(hours.length);
    expect([
      kalshi!.points[0]!.bestBid.toString(),
      kalshi!.points[0]!.bestAsk.toString(),
      kalshi!.points[0]!.mid.toString(),
    ]).toEqual(["0.3", "0.34", "0.32"]);
    // one batch request per window and venue, in the documented batch forms: Polymarket's windows
    // are 14 days; Kalshi bills a request per ticker whatever its span, so its 40 days are one window
    const windows = historyWindows(new Date(base), new Date(hours.at(-1)!)).length;
    expect(windows).toBe(3);
    expect(fake.hits.filter((h) => h.startsWith("POST /clob/batch-prices-history")).length).toBe(windows);
    expect(
      fake.hits.filter(
        (h) =>
          h.startsWith("/kalshi/markets/candlesticks?market_tickers=KXCPI-26-T3&") && h.includes("period_interval=60"),
      ).length,
    ).toBe(1);
    expect(fake.hits.filter((h) => h.startsWith("/clob/prices-history") || h.includes("/series/"))).toEqual([]);
  });

  test("90 days of 40 Kalshi markets: each ticker asked (and billed) once, 4 tickers a batch within 10,000 candles", async () => {
    const span = 90 * 24;
    const tickers = Array.from({ length: 40 }, (_, i) => `K${i}`);
    for (const t of tickers)
      fake.history.kalshi.set(
        t,
        Array.from({ length: span }, (_, i) => ({ t: sec(base + i * HOUR), bid: 0.3, ask: 0.32 })),
      );
    const markets = tickers.map((t) => ({
      venue: "kalshi" as const,
      conditionId: `kalshi:${t}`,
      venueRef: t,
      series: "KX",
    }));
    // a long timeout: each answer holds four markets' 90 days
    const patient = new VenueHttp({
      venue: "test",
      concurrency: 4,
      timeoutMs: 30_000,
      backoffMs: 1,
      sleep: async () => {},
    });
    const reads = await readHistory(patient, urls(), markets, new Date(base), new Date(base + (span - 1) * HOUR));
    expect(reads.filter((r) => r.outcome !== "answered" || r.points.length !== span)).toEqual([]);
    // distinct requests (a retry on a loaded machine repeats one)
    const asked = [...new Set(fake.hits.filter((h) => h.startsWith("/kalshi/markets/candlesticks?")))].map((h) =>
      new URL(h, "http://x").searchParams.get("market_tickers")!.split(","),
    );
    expect(asked.map((a) => a.length)).toEqual(Array<number>(10).fill(4));
    expect(asked.flat().sort()).toEqual([...tickers].sort());
  });

  test("batches hold at most 20 Polymarket tokens, and as many Kalshi tickers as fit in 10,000 candles", async () => {
    const markets = [
      ...Array.from({ length: 45 }, (_, i) => ({
        venue: "polymarket" as const,
        conditionId: `0xp${i}`,
        venueRef: `tok-p${i}`,
      })),
      ...Array.from({ length: 70 }, (_, i) => ({
        venue: "kalshi" as const,
        conditionId: `kalshi:K${i}`,
        venueRef: `K${i}`,
        series: "KX",
      })),
    ];
    const until = base + HISTORY_WINDOW_MS - HOUR;
    for (const m of markets)
      (m.venue === "polymarket" ? fake.history.poly : fake.history.kalshi).set(
        m.venueRef,
        Array.from({ length: HISTORY_WINDOW_MS / HOUR }, (_, i) => ({ t: sec(base + i * HOUR), bid: 0.3, ask: 0.32 })),
      );
    const reads = await readHistory(http(), urls(), markets, new Date(base), new Date(until));
    expect(reads.filter((r) => "problem" in r)).toEqual([]);
    expect(reads.every((r) => "points" in r && r.points.length === HISTORY_WINDOW_MS / HOUR)).toBe(true);
    // distinct requests (a retry on a loaded machine repeats one)
    const posts = [...new Set(fake.hits.filter((h) => h.startsWith("POST /clob/batch-prices-history")))].map(
      (h) => (JSON.parse(h.slice(h.indexOf("{"))) as { markets: string[] }).markets.length,
    );
    expect(posts.sort((a, b) => b - a)).toEqual([20, 20, 5]);
    // 14 days of hourly candles (337 a ticker with the hour before) fit 29 tickers in 10,000
    const gets = [...new Set(fake.hits.filter((h) => h.startsWith("/kalshi/markets/candlesticks?")))].map(
      (h) => new URL(h, "http://x").searchParams.get("market_tickers")!.split(",").length,
    );
    expect(gets.sort((a, b) => b - a)).toEqual([29, 29, 12]);
  });

  test("a batch the venue refuses with a 4xx is read again market by market with the single form", async () => {
    fake.history.refuseBatch = true;
    fake.history.poly.set("tok-1", [{ t: sec(base), bid: 0.42, ask: 0.42 }]);
    fake.history.kalshi.set("KXCPI-26-T3", [{ t: sec(base), bid: 0.3, ask: 0.34 }]);
    const reads = await readHistory(
      http(),
      urls(),
      [
        { venue: "polymarket", conditionId: "0xa", venueRef: "tok-1" },
        { venue: "kalshi", conditionId: "kalshi:KXCPI-26-T3", venueRef: "KXCPI-26-T3", series: "KXCPI" },
      ],
      new Date(base),
      new Date(base),
    );
    expect(reads.map((r) => ("points" in r ? r.points.map((x) => x.mid.toString()) : r.problem))).toEqual([
      ["0.42"],
      ["0.32"],
    ]);
    expect(
      fake.hits.filter(
        (h) => h.startsWith("POST /clob/batch-prices-history") || h.startsWith("/kalshi/markets/candlesticks?"),
      ),
    ).toHaveLength(2);
    expect(fake.hits.some((h) => h.startsWith("/clob/prices-history?market=tok-1"))).toBe(true);
    expect(fake.hits.some((h) => h.startsWith("/kalshi/series/KXCPI/markets/KXCPI-26-T3/candlesticks?"))).toBe(true);
  });

  test("a market the venue answers without candles has no points (answered); one whose series is unknown (single form) failed", async () => {
    const markets = [
      { venue: "kalshi" as const, conditionId: "kalshi:NOPE", venueRef: "NOPE", series: "KXCPI" },
      { venue: "kalshi" as const, conditionId: "kalshi:X", venueRef: "X", series: null },
    ];
    // Kalshi's batch answer leaves out the tickers without candles: no history, not a failed read
    const batch = await readHistory(http(), urls(), markets, new Date(base), new Date(base + HOUR));
    expect(batch).toEqual([
      { conditionId: "kalshi:NOPE", outcome: "answered", points: [] },
      { conditionId: "kalshi:X", outcome: "answered", points: [] },
    ]);
    fake.history.refuseBatch = true;
    const single = await readHistory(http(), urls(), markets, new Date(base), new Date(base + HOUR));
    expect(single).toEqual([
      { conditionId: "kalshi:NOPE", outcome: "answered", points: [] },
      { conditionId: "kalshi:X", outcome: "failed", problem: "no series ticker known for its candlesticks" },
    ]);
  });

  test("a venue down (connection refused) or answering 503 past the retries: the read failed, never an empty history", async () => {
    const markets = [
      { venue: "kalshi" as const, conditionId: "kalshi:K1", venueRef: "K1", series: "KX" },
      { venue: "polymarket" as const, conditionId: "0xp", venueRef: "tok-p" },
    ];
    fake.history.kalshi.set("K1", [{ t: sec(base), bid: 0.3, ask: 0.34 }]);
    fake.history.poly.set("tok-p", [{ t: sec(base), bid: 0.5, ask: 0.5 }]);
    fake.faults.set("/kalshi/markets/candlesticks", [{ status: 503, times: 100 }]);
    const client = http();
    const unavailable = await readHistory(client, urls(), markets, new Date(base), new Date(base));
    expect(unavailable).toEqual([
      { conditionId: "kalshi:K1", outcome: "failed", problem: expect.stringMatching(/HTTP 503$/) },
      { conditionId: "0xp", outcome: "answered", points: [expect.objectContaining({ t: new Date(base) })] },
    ]);
    expect(client.failed).toBe(1);
    // a closed port: nothing listens there
    const closed = await startFakeVenues();
    const gone = { polymarketClobUrl: closed.clobUrl, kalshiApiUrl: closed.kalshiUrl };
    await closed.close();
    const refused = await readHistory(http(), gone, markets, new Date(base), new Date(base));
    expect(refused.map((r) => [r.outcome, "problem" in r ? r.problem : ""])).toEqual([
      ["failed", expect.stringMatching(/unreachable/)],
      ["failed", expect.stringMatching(/unreachable/)],
    ]);
  });

  test("a failing venue answer is retried, then reported", async () => {
    fake.history.poly.set("tok-2", [{ t: sec(base), bid: 0.5, ask: 0.5 }]);
    fake.faults.set("/clob/batch-prices-history", [{ status: 500, times: 1 }]);
    const [ok] = await readHistory(
      http(),
      urls(),
      [{ venue: "polymarket", conditionId: "0xb", venueRef: "tok-2" }],
      new Date(base),
      new Date(base),
    );
    expect(ok && "points" in ok ? ok.points.map((x) => x.mid.toString()) : ok).toEqual(["0.5"]);
    fake.faults.set("/clob/batch-prices-history", [{ malformed: true, times: 1 }]);
    const [bad] = await readHistory(
      http(),
      urls(),
      [{ venue: "polymarket", conditionId: "0xb", venueRef: "tok-2" }],
      new Date(base),
      new Date(base),
    );
    expect(bad && "problem" in bad ? bad.problem : bad).toMatch(/malformed body/);
  });
});

// Rule (lib/venues/price-history.ts coarsePoints): a resolved Polymarket market has only 12-hour
// points; each hour from its first point through its last takes the latest point at or before it.
describe("a resolved Polymarket market's 12-hour history", () => {
  test("each hour carries the latest 12-hour point at or before it, through the last point, marked coarse; a 0.0025 tick is read exactly", () => {
    const raw = [
      { at: base, bid: d("0.4825"), ask: d("0.4825") },
      { at: base + 12 * HOUR, bid: d("0.5100"), ask: d("0.5100") },
      { at: base + 24 * HOUR, bid: d("0.0025"), ask: d("0.0025") },
    ];
    const points = coarsePoints(raw, new Date(base + 2 * HOUR), new Date(base + 40 * HOUR));
    // hours 2..24: 2..11 carry the first point, 12..23 the second, 24 the third; none after the last point
    expect(points.map((p) => (p.t.getTime() - base) / HOUR)).toEqual(Array.from({ length: 23 }, (_, i) => i + 2));
    expect(points.map((p) => p.mid.toString())).toEqual([
      ...Array<string>(10).fill("0.4825"),
      ...Array<string>(12).fill("0.51"),
      "0.0025",
    ]);
    expect(points.every((p) => p.coarse === true)).toBe(true);
  });

  test("readHistory asks a resolved market's history at 12-hour fidelity (finer is empty for it) and carries its points to the hours", async () => {
    fake.poly.events.push({
      slug: "done",
      title: "Done",
      negRisk: false,
      tags: ["x"],
      endDate: "2026-10-03T00:00:00Z",
      closed: true,
      markets: [
        {
          conditionId: "0xdone",
          question: "Done?",
          yesToken: "tok-done",
          endDate: "2026-10-03T00:00:00Z",
          closed: true,
          outcomePrices: ["1", "0"],
        },
      ],
    });
    fake.history.poly.set(
      "tok-done",
      Array.from({ length: 48 }, (_, i) => ({ t: sec(base + i * HOUR), bid: 0.4 + 0.0025 * i, ask: 0.4 + 0.0025 * i })),
    );
    const market = { venue: "polymarket" as const, conditionId: "0xdone", venueRef: "tok-done" };
    const [hourly] = await readHistory(http(), urls(), [market], new Date(base), new Date(base + 47 * HOUR));
    expect(hourly && "points" in hourly && hourly.points).toEqual([]);
    const [coarse] = await readHistory(
      http(),
      urls(),
      [{ ...market, resolved: true }],
      new Date(base),
      new Date(base + 47 * HOUR),
    );
    const points = coarse && "points" in coarse ? coarse.points : [];
    expect(points.map((p) => [(p.t.getTime() - base) / HOUR, p.mid.toString()])).toEqual(
      Array.from({ length: 37 }, (_, h) => [h, (0.4 + 0.0025 * (h - (h % 12))).toFixed(4).replace(/0+$/, "")]),
    );
    expect(fake.hits.some((h) => h.startsWith("POST /clob/batch-prices-history") && h.includes('"fidelity":720'))).toBe(
      true,
    );
  });
});

// Rule (lib/venues/price-history.ts singleRequest): a Kalshi market settled before the historical
// cutoff is read from the historical tier, whose candles name their dollar strings `close`.
describe("Kalshi's historical tier", () => {
  test("a market settled before the cutoff is read from /historical/markets/{ticker}/candlesticks; the live forms no longer serve it", async () => {
    fake.kalshi.cutoff = new Date(base + 10 * 24 * HOUR);
    fake.kalshi.events.push({
      event_ticker: "KXCPI-OLD",
      series_ticker: "KXCPI",
      title: "Old",
      mutually_exclusive: false,
      markets: [
        {
          ticker: "KXCPI-OLD-T2",
          title: "Old?",
          status: "settled",
          result: "yes",
          close_time: new Date(base + 5 * HOUR).toISOString(),
        },
      ],
    });
    fake.history.kalshi.set(
      "KXCPI-OLD-T2",
      Array.from({ length: 5 }, (_, i) => ({ t: sec(base + i * HOUR), bid: 0.6125, ask: 0.6375 })),
    );
    const market = {
      venue: "kalshi" as const,
      conditionId: "kalshi:KXCPI-OLD-T2",
      venueRef: "KXCPI-OLD-T2",
      series: "KXCPI",
    };
    const [live] = await readHistory(http(), urls(), [market], new Date(base), new Date(base + 4 * HOUR));
    // the live batch answer leaves it out: no candles there (which is why the historical tier is read)
    expect(live).toEqual({ conditionId: "kalshi:KXCPI-OLD-T2", outcome: "answered", points: [] });
    const [old] = await readHistory(
      http(),
      urls(),
      [{ ...market, historical: true }],
      new Date(base),
      new Date(base + 4 * HOUR),
    );
    expect(old && "points" in old && old.points.map((p) => p.mid.toString())).toEqual(Array<string>(5).fill("0.625"));
    expect(fake.hits.filter((h) => h.startsWith("/kalshi/historical/markets/KXCPI-OLD-T2/candlesticks?"))).toHaveLength(
      1,
    );
  });
});

// Rule (lib/venues/http.ts): Kalshi's 429 has no Retry-After; the client backs off by itself and
// holds the budget, and a batch takes one request's worth of the budget per ticker.
describe("Kalshi's rate limits", () => {
  test("429s without Retry-After are survived by the client's own backoff", async () => {
    fake.history.kalshi.set("KXCPI-26-T3", [{ t: sec(base), bid: 0.3, ask: 0.34 }]);
    fake.faults.set("/kalshi/markets/candlesticks", [{ status: 429, times: 2 }]);
    const waits: number[] = [];
    const client = new VenueHttp({
      venue: "kalshi",
      concurrency: 2,
      timeoutMs: 2000,
      backoffMs: 5,
      sleep: async (ms) => void waits.push(ms),
    });
    const [r] = await readHistory(
      client,
      urls(),
      [{ venue: "kalshi", conditionId: "kalshi:KXCPI-26-T3", venueRef: "KXCPI-26-T3", series: "KXCPI" }],
      new Date(base),
      new Date(base),
    );
    expect(r && "points" in r && r.points.map((p) => p.mid.toString())).toEqual(["0.32"]);
    expect(waits).toEqual([5, 10]);
    expect(client.raw.map((x) => x.status)).toEqual([429, 429, 200]);
  });

  test("a batch of n tickers takes n requests' worth of the budget (Kalshi bills a batch per item)", async () => {
    const client = new VenueHttp({ venue: "kalshi", concurrency: 4, rps: 20, timeoutMs: 2000 });
    const issued = Date.now();
    await client.getJson(`${fake.kalshiUrl}/historical/cutoff`, { cost: 10 });
    await client.getJson(`${fake.kalshiUrl}/historical/cutoff`);
    // the second may start only after 10 / 20 s
    expect(fake.received[1]!.at - issued).toBeGreaterThanOrEqual(500);
  });
});
