import { execFile } from "node:child_process";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { venuesCommand } from "@/lib/venues/search-command";
import { startFakeVenues, type FakeVenues } from "../../support/fake-venues";

// `npm run venues -- search WORDS` against local venues answering in the documented shapes of
// Gamma `/public-search` and `/events`, and Kalshi `/series` and `/events`.

let fake: FakeVenues;
const end = "2027-01-10T00:00:00Z";

beforeEach(async () => {
  fake = await startFakeVenues();
  fake.poly.events.push(
    {
      slug: "fed-decision-december",
      title: "Fed decision in December",
      negRisk: true,
      tags: ["fed-rates", "economy"],
      endDate: "2026-12-10T00:00:00Z",
      markets: [
        {
          conditionId: "0xcut",
          question: "Fed cuts?",
          groupItemTitle: "Cut",
          yesToken: "tok-cut",
          endDate: "2026-12-10T00:00:00Z",
        },
        {
          conditionId: "0xhold",
          question: "Fed holds?",
          groupItemTitle: "Hold",
          yesToken: "tok-hold",
          endDate: "2026-12-10T00:00:00Z",
        },
        {
          conditionId: "0xhike",
          question: "Fed hikes?",
          groupItemTitle: "Hike",
          yesToken: "tok-hike",
          endDate: "2026-12-10T00:00:00Z",
          closed: true,
        },
      ],
    },
    {
      slug: "fed-chair-2027",
      title: "Fed chair nominee",
      negRisk: false,
      tags: ["fed-rates"],
      endDate: "2027-02-01T00:00:00Z",
      markets: [
        {
          conditionId: "0xchair",
          question: "Will the Fed chair be named?",
          yesToken: "tok-chair",
          endDate: "2027-02-01T00:00:00Z",
        },
      ],
    },
    {
      slug: "fed-old",
      title: "Fed decision in June",
      negRisk: true,
      tags: ["fed-rates"],
      endDate: "2026-06-10T00:00:00Z",
      closed: true,
      markets: [],
    },
  );
  fake.kalshi.events.push(
    {
      event_ticker: "KXFED-26DEC",
      series_ticker: "KXFED",
      title: "Fed rate in December",
      mutually_exclusive: true,
      markets: [
        { ticker: "KXFED-26DEC-T4.00", title: "4.00%", status: "active", close_time: "2026-12-10T19:00:00Z" },
        { ticker: "KXFED-26DEC-T4.25", title: "4.25%", status: "active", close_time: "2026-12-10T19:00:00Z" },
      ],
    },
    {
      event_ticker: "KXFED-27JAN",
      series_ticker: "KXFED",
      title: "Fed rate in January",
      mutually_exclusive: true,
      markets: [{ ticker: "KXFED-27JAN-T4.00", title: "4.00%", status: "active", close_time: "2027-01-28T19:00:00Z" }],
    },
  );
  fake.discovery.kalshiSeries.push(
    { ticker: "KXCPI", title: "CPI year over year", category: "Economics", tags: ["Inflation"] },
    { ticker: "KXFED", title: "Fed funds rate", category: "Economics", tags: ["Fed", "Interest rates"] },
  );
});
afterEach(async () => fake.close());

async function run(args: string[]) {
  let out = "";
  let err = "";
  const code = await venuesCommand(args, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: {
      NODE_ENV: "test",
      POLYMARKET_GAMMA_URL: fake.gammaUrl,
      POLYMARKET_CLOB_URL: fake.clobUrl,
      KALSHI_API_URL: fake.kalshiUrl,
      COLLECT_TIMEOUT_MS: "2000",
    },
    endpoints: { backoffMs: 1 },
  });
  const rows = out
    .split("\n")
    .filter((l) => /^(polymarket|kalshi) /.test(l))
    .map((l) => l.split(/\s{2,}/));
  return { code, out, err, rows };
}

describe("venues search", () => {
  test("lists Polymarket tags and events and Kalshi series and events with selector, status, close date and open markets", async () => {
    const r = await run(["search", "fed"]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    expect(r.out.split("\n")[0]).toMatch(/^VENUE\s+KIND\s+SELECTOR\s+TITLE\s+STATUS\s+CLOSES\s+MARKETS$/);
    expect(r.rows).toEqual([
      // a tag counts the open markets of its open events; its close is the next one
      ["polymarket", "tag", "fed-rates", "fed-rates", "open", "2026-12-10", "3"],
      // the closed market of an event is not counted; a closed event is not listed
      ["polymarket", "event*", "fed-decision-december", "Fed decision in December", "open", "2026-12-10", "2"],
      ["polymarket", "event", "fed-chair-2027", "Fed chair nominee", "open", "2027-02-01", "1"],
      ["kalshi", "series", "KXFED", "Fed funds rate", "open", "2026-12-10", "3"],
      ["kalshi", "event*", "KXFED-26DEC", "Fed rate in December", "open", "2026-12-10", "2"],
      ["kalshi", "event*", "KXFED-27JAN", "Fed rate in January", "open", "2027-01-28", "1"],
    ]);
    expect(r.out).toContain("universe.seriesTickers");
    expect(r.out).toContain("volatility series' `event`");
  });

  test("Kalshi series match on their category and tags too, and every word must match", async () => {
    const r = await run(["search", "inflation", "economics", "--venue", "kalshi"]);
    expect(r.rows).toEqual([["kalshi", "series", "KXCPI", "CPI year over year", "no open markets", "-", "0"]]);
    expect(fake.hits.some((h) => h.startsWith("/gamma"))).toBe(false);
  });

  test("cursors are followed within the page cap, and a capped count says so", async () => {
    fake.discovery.kalshiSeriesPage = 1;
    fake.pageSize.kalshi = 1;
    const r = await run(["search", "fed", "--venue", "kalshi"]);
    expect(fake.hits.filter((h) => h.startsWith("/kalshi/series")).length).toBe(2);
    expect(r.rows[0]).toEqual(["kalshi", "series", "KXFED", "Fed funds rate", "open", "2026-12-10", "3"]);
    fake.kalshi.events.push(
      ...Array.from({ length: 6 }, (_, i) => ({
        event_ticker: `KXFED-X${i}`,
        series_ticker: "KXFED",
        title: `Fed ${i}`,
        mutually_exclusive: false,
        markets: [{ ticker: `KXFED-X${i}-A`, title: "A", status: "active", close_time: end }],
      })),
    );
    const capped = await run(["search", "fed", "--venue", "kalshi", "--limit", "2"]);
    expect(capped.rows[0]).toEqual(["kalshi", "series", "KXFED", "Fed funds rate", "open", "2026-12-10", "6+"]);
    expect(capped.rows.length).toBe(3);
    expect(capped.out).toContain("+ counted up to the page cap");
  });

  test("an event answered without its markets shows no count rather than zero", async () => {
    fake.discovery.searchWithoutMarkets = true;
    const r = await run(["search", "fed", "chair", "--venue", "polymarket"]);
    expect(r.rows).toEqual([["polymarket", "event", "fed-chair-2027", "Fed chair nominee", "open", "2027-02-01", "-"]]);
  });

  test("a failing venue is one line on stderr and the other venue's rows still print", async () => {
    fake.faults.set("/kalshi/series", [{ status: 500, times: 10 }]);
    const r = await run(["search", "fed"]);
    expect(r.code).toBe(0);
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(/^kalshi: search failed: .*\/kalshi\/series: HTTP 500$/),
    ]);
    expect(r.rows.map((x) => x[0])).toEqual(["polymarket", "polymarket", "polymarket"]);
  });

  test("when every venue fails the exit code is 1", async () => {
    fake.faults.set("/kalshi/series", [{ status: 500, times: 10 }]);
    fake.faults.set("/gamma/public-search", [{ malformed: true, times: 10 }]);
    const r = await run(["search", "fed"]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      /^polymarket: search failed: .*malformed body \(not JSON\)\nkalshi: search failed: .*HTTP 500\n$/,
    );
  });

  test.each([
    [["find", "fed"], /unknown command "find"/],
    [["search"], /give the words/],
    [["search", "fed", "--venue", "nyse"], /--venue must be polymarket or kalshi/],
    [["search", "fed", "--limit", "0"], /--limit must be a whole number/],
  ])("bad usage %j exits 2 with a message", async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(fake.hits).toEqual([]);
  });

  test("npm run venues runs the command (exit code and table from the script)", async () => {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "scripts/venues.ts", "search", "fed", "chair", "--venue", "polymarket"],
        {
          env: { ...process.env, POLYMARKET_GAMMA_URL: fake.gammaUrl, KALSHI_API_URL: fake.kalshiUrl },
          encoding: "utf8",
        },
        (error, out) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }),
      ),
    );
    expect(code).toBe(0);
    expect(stdout.split("\n")[1]!.split(/\s{2,}/)).toEqual([
      "polymarket",
      "event",
      "fed-chair-2027",
      "Fed chair nominee",
      "open",
      "2027-02-01",
      "1",
    ]);
  });
});
