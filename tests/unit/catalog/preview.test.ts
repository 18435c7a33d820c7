import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { previewCommand } from "@/lib/catalog/preview-command";
import { kalshiBookFp, polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";

// `npm run catalog -- preview FILE` against local venues in their documented shapes: the markets
// each index would select now with the engine's verdict, and each volatility series' legs.

const now = new Date("2026-11-25T12:30:00Z");
const inDays = (d: number, from = now) => new Date(from.getTime() + d * 86_400_000).toISOString();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-preview-"));
let fake: FakeVenues;

const catalog = {
  version: 1,
  indices: [
    {
      ticker: "PMX-BTC",
      name: "BTC markets",
      description: "Open Polymarket markets tagged crypto.",
      inceptionAt: "start",
      maturityType: "PERPETUAL",
      universe: { venue: "polymarket", tagSlugs: ["crypto"] },
      eligibility: { minDepthUsd: 100, maxSpread: 0.05, minDaysToSettlement: 2, maxDaysToSettlement: 60 },
    },
    {
      ticker: "KX-CPI",
      name: "CPI",
      description: "Kalshi CPI markets.",
      inceptionAt: "start",
      maturityType: "PERPETUAL",
      universe: { venue: "kalshi", seriesTickers: ["KXCPI"] },
    },
  ],
  volatility: [
    {
      ticker: "PMV-FED",
      slug: "fed",
      name: "Fed volatility",
      description: "The December Fed decision.",
      category: "macro",
      venue: "polymarket",
      event: "fed-decision-december",
      tenorsDays: [7, 30],
      headlineTenorDays: 30,
    },
  ],
};

function setUp(from = now) {
  const market = (slug: string, days: number) => ({
    conditionId: `0x${slug}`,
    question: `BTC ${slug}?`,
    yesToken: `tok-${slug}`,
    endDate: inDays(days, from),
  });
  fake.poly.events.push(
    ...[
      ["ok", 40],
      ["wide", 40],
      ["thin", 40],
      ["soon", 1],
      ["far", 90],
      ["nobook", 40],
    ].map(([slug, days]) => ({
      slug: `btc-${slug}`,
      title: `BTC ${slug}`,
      negRisk: false,
      tags: ["crypto"],
      endDate: inDays(days as number, from),
      markets: [market(slug as string, days as number)],
    })),
    {
      slug: "btc-ladder",
      title: "BTC ladder",
      negRisk: true,
      tags: ["crypto"],
      endDate: inDays(40, from),
      markets: [{ ...market("rung", 40), groupItemTitle: "100k" }],
    },
    {
      slug: "fed-decision-december",
      title: "Fed decision in December",
      negRisk: true,
      tags: ["fed"],
      endDate: inDays(15, from),
      markets: (["Cut", "Hold", "Hike"] as const).map((g) => ({
        conditionId: `0x${g}`,
        question: `Fed ${g}?`,
        groupItemTitle: g,
        yesToken: `tok-${g}`,
        endDate: inDays(15, from),
      })),
    },
  );
  fake.poly.books.set("tok-ok", polyBook(0.4, 0.43));
  fake.poly.books.set("tok-wide", polyBook(0.3, 0.4));
  fake.poly.books.set("tok-thin", polyBook(0.5, 0.52, 10));
  fake.poly.books.set("tok-soon", polyBook(0.4, 0.43));
  fake.poly.books.set("tok-far", polyBook(0.4, 0.43));
  fake.poly.books.set("tok-rung", polyBook(0.4, 0.43));
  fake.poly.books.set("tok-Cut", polyBook(0.3, 0.32, 5000));
  fake.poly.books.set("tok-Hold", polyBook(0.6, 0.62, 5000));
  fake.poly.books.set("tok-Hike", polyBook(0.02, 0.08, 5000));
  fake.kalshi.events.push({
    event_ticker: "KXCPI-26DEC",
    series_ticker: "KXCPI",
    title: "CPI in December",
    mutually_exclusive: false,
    markets: [{ ticker: "KXCPI-26DEC-T3", title: "CPI above 3%", status: "active", close_time: inDays(20, from) }],
  });
  fake.kalshi.books.set("KXCPI-26DEC-T3", kalshiBookFp(0.4, 0.43));
}

beforeEach(async () => {
  fake = await startFakeVenues();
});
afterEach(async () => fake.close());

const env = () => ({
  NODE_ENV: "test" as const,
  POLYMARKET_GAMMA_URL: fake.gammaUrl,
  POLYMARKET_CLOB_URL: fake.clobUrl,
  KALSHI_API_URL: fake.kalshiUrl,
  COLLECT_TIMEOUT_MS: "2000",
});
function write(name: string, content: unknown) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}
async function run(file: string) {
  let out = "";
  let err = "";
  const code = await previewCommand(file, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: env(),
    endpoints: { backoffMs: 1 },
    now,
  });
  return { code, out, err };
}
/** The table rows under a heading, split on the column gaps. */
function rowsOf(out: string, heading: string): string[][] {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => l.startsWith(heading));
  const rows: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (l === "") break;
    if (l.startsWith("    ")) rows.push(l.trim().split(/\s{2,}/));
  }
  return rows.slice(1);
}

describe("catalog preview", () => {
  test("each index lists the markets it would select now with the engine's verdict and the reason when excluded", async () => {
    setUp();
    const r = await run(write("catalog.json", catalog));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("index PMX-BTC (polymarket: tag crypto)");
    expect(r.out).toContain(
      "eligibility: minDepthUsd 100, maxSpread 0.05, daysToSettlement 2..60, partition legs excluded",
    );
    expect(r.out).toContain("1 of 7 market(s) would enter");
    const rows = rowsOf(r.out, "index PMX-BTC").map((row) => [row[0], row[1], row[8] ?? ""]);
    expect(rows).toEqual([
      ["enters", "BTC ok?", ""],
      ["excluded", "BTC soon?", "settles in 0.5 days, fewer than minDaysToSettlement 2"],
      ["excluded", "BTC nobook?", "no quote: no order book (left out of the /books answer)"],
      ["excluded", "BTC rung?", "a leg of a mutually exclusive event (eligibility.includePartitionLegs is false)"],
      ["excluded", "BTC thin?", "depth $20.40 below minDepthUsd $100.00"],
      ["excluded", "BTC wide?", "spread 0.1 above maxSpread 0.05"],
      ["excluded", "BTC far?", "settles in 89.5 days, more than maxDaysToSettlement 60"],
    ]);
    // the entrant's quote as read from the book: bid, ask, depth within 0.05 of the mid
    expect(rowsOf(r.out, "index PMX-BTC")[0]!.slice(3, 8)).toEqual([
      inDays(40).slice(0, 10),
      "39.5",
      "0.40",
      "0.43",
      "1660.00",
    ]);
    expect(rowsOf(r.out, "index KX-CPI")).toEqual([
      ["enters", "CPI above 3%", "KXCPI-26DEC-T3", inDays(20).slice(0, 10), "19.5", "0.40", "0.43", "610.00"],
    ]);
  });

  test("a volatility series lists the legs it would have, with the per-leg gates of its book", async () => {
    setUp();
    const r = await run(write("catalog.json", catalog));
    expect(r.out).toContain('volatility PMV-FED (polymarket event fed-decision-december: "Fed decision in December")');
    expect(r.out).toContain(`3 leg(s), settlement ${inDays(15).slice(0, 10)}`);
    const legs = rowsOf(r.out, "volatility PMV-FED");
    expect(legs.map((l) => [l[0], l[3], l[4], l[5], l.at(-1)])).toEqual([
      ["cut", "0.30", "0.32", "0.31", "pass"],
      ["hold", "0.60", "0.62", "0.61", "pass"],
      [
        "hike",
        "0.02",
        "0.08",
        "0.05",
        "The bid-ask spread on 'Fed Hike?' is 1.20 times its mid price, above the 1.00 limit.",
      ],
    ]);
    expect(r.out).toContain("flag: Leg prices sum to 0.970, below the 0.980 floor.");
  });

  test("Kalshi: an event-ticker universe that includes partition legs, and a series on the same mutually exclusive event", async () => {
    fake.kalshi.events.push({
      event_ticker: "KXFED-26DEC",
      series_ticker: "KXFED",
      title: "Fed rate in December",
      mutually_exclusive: true,
      markets: [
        {
          ticker: "KXFED-26DEC-T4.00",
          title: "Fed rate",
          yes_sub_title: "4.00%",
          status: "active",
          close_time: inDays(15),
        },
        {
          ticker: "KXFED-26DEC-T4.25",
          title: "Fed rate",
          yes_sub_title: "4.25%",
          status: "active",
          close_time: inDays(15),
        },
        {
          ticker: "KXFED-26DEC-T4.50",
          title: "Fed rate",
          yes_sub_title: "4.50%",
          status: "settled",
          result: "no",
          close_time: inDays(15),
        },
      ],
    });
    fake.kalshi.books.set("KXFED-26DEC-T4.00", kalshiBookFp(0.55, 0.57));
    fake.kalshi.books.set("KXFED-26DEC-T4.25", kalshiBookFp(0.41, 0.44, 100));
    const kalshi = {
      version: 1,
      indices: [
        {
          ...catalog.indices[1],
          ticker: "KX-FED",
          universe: { venue: "kalshi", eventTickers: ["KXFED-26DEC"] },
          eligibility: { includePartitionLegs: true, minDepthUsd: 200 },
        },
      ],
      volatility: [{ ...catalog.volatility[0], ticker: "KXV-FED", venue: "kalshi", event: "KXFED-26DEC" }],
    };
    const r = await run(write("kalshi.json", kalshi));
    expect(r.code).toBe(0);
    expect(rowsOf(r.out, "index KX-FED").map((row) => [row[0], row[2], row[8] ?? ""])).toEqual([
      ["enters", "KXFED-26DEC-T4.00", ""],
      ["excluded", "KXFED-26DEC-T4.25", "depth $125.00 below minDepthUsd $200.00"],
      ["excluded", "KXFED-26DEC-T4.50", "resolved NO"],
    ]);
    expect(rowsOf(r.out, "volatility KXV-FED").map((l) => [l[0], l[1], l.at(-1)])).toEqual([
      ["t4.00", "Fed rate in December: 4.00%", "pass"],
      [
        "t4.25",
        "Fed rate in December: 4.25%",
        "'Fed rate in December: 4.25%' has $125 of book depth, below the $250 floor.",
      ],
      ["t4.50", "Fed rate in December: 4.50%", "resolved"],
    ]);
  });

  test("a venue that fails is reported on its entries, the others are still previewed, and the exit code is 1", async () => {
    setUp();
    fake.faults.set("/kalshi/events", [{ status: 500, times: 10 }]);
    const r = await run(write("catalog.json", catalog));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /index KX-CPI[^\n]*\n[^\n]*\n {2}0 of 0 market\(s\) would enter\n {2}venue problem: kalshi kalshi:series:KXCPI: .*\/kalshi\/events\?series_ticker=KXCPI.*: HTTP 500\n/,
    );
    expect(r.out).toContain("1 of 7 market(s) would enter");
    expect(r.err).toContain("the preview is incomplete");
  });

  test("an event that is not mutually exclusive is named as the series' problem", async () => {
    setUp();
    const bad = { ...catalog, volatility: [{ ...catalog.volatility[0], event: "btc-ok" }] };
    const r = await run(write("bad-event.json", bad));
    expect(r.code).toBe(1);
    expect(r.out).toContain("venue problem: polymarket event btc-ok: is not a neg-risk (mutually exclusive) event");
  });

  test("an invalid catalog is refused with its JSON paths before any venue is read", async () => {
    const r = await run(
      write("invalid.json", { ...catalog, indices: [{ ...catalog.indices[0], eligibility: { maxSpread: 2 } }] }),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/\$\.indices\[0\]\.eligibility\.maxSpread: must be at most 1, got 2/);
    expect(fake.hits).toEqual([]);
  });

  test("npm run catalog -- preview runs without a server or a database", async () => {
    setUp(new Date());
    const file = write("catalog.json", catalog);
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/catalog.ts", "preview", file],
        // an address nothing listens on: the command must not need it
        { env: { ...process.env, ...env(), DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" }, encoding: "utf8" },
        (error, out) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }),
      ),
    );
    expect(stdout).toContain("1 of 7 market(s) would enter");
    expect(code).toBe(0);
  });
});
