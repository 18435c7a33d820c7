import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";
import { startServer, type RunningServer } from "../support/server";
import { polyBook, kalshiBookFp, startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";
import { cpiEvent, cpiIndex, cryptoEvent, cryptoIndex, tsxCli, venueEnv } from "../support/venue-fixtures";

// Back-calculated history: a catalog of venue entries whose base date lies 35 days before their
// launch, applied to a new service (real PostgreSQL, the operator CLIs, venues answering over
// HTTP in their documented shapes). The first collector run back-calculates every hour from the
// base date from the venues' price history, then the engine goes on live.

const HOUR = 3_600_000;
const launch = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR);
// 35 days: the month before the launch closes, so its bundle is built and verified
const base = new Date(launch.getTime() - 35 * 24 * HOUR);
const at = (h: number) => new Date(base.getTime() + h * HOUR);
const sec = (d: Date) => d.getTime() / 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-backcalc-"));
const name = uniqueName("pmb_backcalc");
let url = "";
let fake: FakeVenues;
let client: pg.Client;
let server: RunningServer | undefined;

const catalog = {
  version: 1,
  indices: [
    // history has no depth: this rule cannot apply to back-calculated hours
    cryptoIndex({ inceptionAt: base, launchAt: launch }, { eligibility: { minDepthUsd: 100, maxSpread: 0.1 } }),
    cpiIndex({ inceptionAt: base, launchAt: launch }),
  ],
};

const cli = tsxCli(() => venueEnv(fake, { DATABASE_URL: url, COLLECT_TIMEOUT_MS: "3000" }));

/** An hourly path from hour `from` to the launch (exclusive), the price given per hour index. */
const path4 = (from: number, until: number, price: (h: number) => number, spread = 0): HistoryPrice[] =>
  Array.from({ length: until - from }, (_, i) => ({
    t: sec(at(from + i)),
    bid: +(price(from + i) - spread / 2).toFixed(4),
    ask: +(price(from + i) + spread / 2).toFixed(4),
  }));

/**
 * A resolved Polymarket market's history has only 12-hour points (t a multiple of 12 hours): hour
 * h carries the latest one at or before it (content/docs/methodology/recomputing.mdx). The hour
 * index of that point, whatever hour the test runs at.
 */
const grid12 = (h: number) => {
  let k = h;
  while (sec(at(k)) % 43_200 !== 0) k--;
  return k;
};
const pa = (h: number) => 0.4 + 0.1 * Math.sin(h / 10);
const pb = (h: number) => 0.6 - 0.0002 * h;
const pl = (h: number) => 0.3 + 0.01 * h;
const HOURS = 35 * 24;

async function levels(ticker: string) {
  const r = await client.query<{ t: Date; level: string; basis: string; stale: boolean }>(
    `SELECT l.t, l.level::text AS level, l.basis, l.stale FROM index_levels l JOIN indices i ON i.id = l."indexId" WHERE i.ticker = $1 ORDER BY l.t`,
    [ticker],
  );
  return r.rows;
}

beforeAll(async () => {
  url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  fake = await startFakeVenues();
  const end = new Date(launch.getTime() + 40 * 24 * HOUR).toISOString();
  fake.poly.events.push(
    cryptoEvent("btc-a", end, "tok-a"),
    // b lists a day after the base date
    cryptoEvent("btc-b", end, "tok-b"),
    // a ladder whose first rung resolved YES two days after the base date; the event stays open
    {
      slug: "btc-ladder",
      title: "BTC ladder",
      negRisk: false,
      tags: ["crypto"],
      endDate: end,
      markets: [
        {
          conditionId: "0xrung-1",
          question: "Will BTC reach rung 1?",
          yesToken: "tok-r1",
          endDate: end,
          closed: true,
          outcomePrices: ["1", "0"],
        },
        { conditionId: "0xrung-2", question: "Will BTC reach rung 2?", yesToken: "tok-r2", endDate: end },
      ],
    },
  );
  // opened after the base date and closed before the launch: the venue lists its event as closed only
  const gone = at(300).toISOString();
  fake.poly.events.push({
    slug: "btc-gone",
    title: "BTC gone",
    negRisk: false,
    tags: ["crypto"],
    endDate: gone,
    closed: true,
    markets: [
      {
        conditionId: "0xbtc-gone",
        question: "Will BTC reach gone?",
        yesToken: "tok-g",
        endDate: gone,
        closed: true,
        outcomePrices: ["0", "1"],
      },
    ],
  });
  fake.history.poly.set(
    "tok-g",
    path4(100, 300, () => 0.2),
  );
  // KXCPI-OLD settled before Kalshi's historical cutoff: only the historical tier serves it
  fake.kalshi.cutoff = at(250);
  fake.poly.books.set("tok-a", polyBook(pa(HOURS) - 0.01, pa(HOURS) + 0.01));
  fake.poly.books.set("tok-b", polyBook(pb(HOURS) - 0.01, pb(HOURS) + 0.01));
  fake.poly.books.set("tok-r2", polyBook(0.5, 0.52));
  fake.poly.books.set("tok-r1", polyBook(0.98, 0.99));
  fake.history.poly.set("tok-a", path4(0, HOURS, pa));
  fake.history.poly.set("tok-b", path4(24, HOURS, pb));
  // rung 1 resolved inside the back window: its history is read at 12-hour fidelity; it has points from before the base date
  fake.history.poly.set(
    "tok-r1",
    path4(-12, 48, (h) => pl(Math.max(0, h))),
  );
  fake.history.poly.set(
    "tok-r2",
    path4(0, HOURS, () => 0.5),
  );
  fake.kalshi.events.push(cpiEvent("A", end));
  fake.kalshi.events.push({
    event_ticker: "KXCPI-OLD",
    series_ticker: "KXCPI",
    title: "CPI old",
    mutually_exclusive: false,
    markets: [
      {
        ticker: "KXCPI-OLD-T2",
        title: "CPI old above 2%?",
        status: "settled",
        result: "yes",
        close_time: at(200).toISOString(),
      },
    ],
  });
  fake.history.kalshi.set(
    "KXCPI-OLD-T2",
    path4(50, 200, () => 0.7, 0.02),
  );
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(0.5, 0.53));
  fake.history.kalshi.set(
    "KXCPI-A-T3",
    path4(0, HOURS, (h) => 0.4 + 0.0005 * h, 0.04),
  );
  // Gamma's keyset lists a page at a time: two events a page, so the tag's reads go over several pages
  fake.pageSize.gamma = 2;
  // Kalshi's rate limit: 429s without Retry-After on its batch candlesticks, survived by the connector's own backoff
  fake.faults.set("/kalshi/markets/candlesticks", [{ status: 429, times: 2 }]);
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  const applied = await cli("scripts/catalog.ts", ["apply", file]);
  expect(applied.status, applied.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await client?.end();
  await fake?.close();
  await dropDatabase(name);
});

describe("back-calculation from a base date", () => {
  it("the first collector run back-calculates every hour from the base date, then the engine computes the launch hour live", async () => {
    const r = await cli("scripts/collect.ts", ["--once", "--at", launch.toISOString()]);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/back-calculated KX-CPI, PMX-BTC|back-calculated PMX-BTC, KX-CPI/);
    expect(r.stdout).toContain("3 resolution(s) dated from the history");
    // keyset pages followed by their cursor; the 429s were waited out
    expect(
      fake.hits.filter(
        (h) => h.startsWith("/gamma/events/keyset?tag_slug=crypto&closed=false") && h.includes("&after_cursor="),
      ).length,
    ).toBeGreaterThanOrEqual(1);
    expect(fake.faults.get("/kalshi/markets/candlesticks")).toEqual([]);
    expect(r.stdout).not.toMatch(/HTTP 429/);

    const btc = await levels("PMX-BTC");
    expect(btc[0]!.t.toISOString()).toBe(base.toISOString());
    expect(btc[0]!.level).toBe("100.00000000");
    expect(btc.at(-1)!.t.toISOString()).toBe(launch.toISOString());
    expect(btc).toHaveLength(HOURS + 1);
    expect(btc.filter((l) => l.t < launch).every((l) => l.basis === "back-calculated")).toBe(true);
    expect(btc.at(-1)!.basis).toBe("live");
    expect(btc.filter((l) => l.t < launch).some((l) => l.stale)).toBe(false);
  });

  it("prices the basket with the history's prices at the composition's weights (no depth rule on history)", async () => {
    const members = await client.query<{ conditionId: string; targetWeight: string }>(
      `SELECT m."conditionId", m."targetWeight"::text AS "targetWeight" FROM composition_members m JOIN compositions c ON c.id = m."compositionId" JOIN indices i ON i.id = c."indexId" WHERE i.ticker = 'PMX-BTC' AND c.version = 'v1'`,
    );
    expect(members.rows.map((m) => m.conditionId).sort()).toEqual(["0xbtc-a", "0xrung-1", "0xrung-2"]);
    // rung 1 is priced by the 12-hour rule: the latest 12-hour point at or before the hour
    const price: Record<string, (h: number) => number> = {
      "0xbtc-a": pa,
      "0xrung-1": (h) => pl(Math.max(0, grid12(h))),
      "0xrung-2": () => 0.5,
    };
    const basket = (h: number) =>
      members.rows.reduce(
        (s, m) => s.plus(new Decimal(m.targetWeight).times(price[m.conditionId]!(h).toFixed(4))),
        new Decimal(0),
      );
    const btc = await levels("PMX-BTC");
    const expected = new Decimal(100)
      .times(basket(10))
      .dividedBy(basket(0))
      .toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);
    expect(btc[10]!.level).toBe(expected.toFixed(8));
  });

  it("lists a market from its first price and dates a resolution at the hour after its last price", async () => {
    const m = await client.query<{
      conditionId: string;
      listedAt: Date;
      resolvedAt: Date | null;
      outcome: number | null;
    }>(`SELECT "conditionId", "listedAt", "resolvedAt", outcome FROM markets ORDER BY "conditionId"`);
    const byId = new Map(m.rows.map((r) => [r.conditionId, r]));
    expect(byId.get("0xbtc-b")!.listedAt.toISOString()).toBe(at(24).toISOString());
    // its last 12-hour point is the last hour it is in the history; it resolves the hour after
    expect(byId.get("0xrung-1")!.resolvedAt!.toISOString()).toBe(at(grid12(47) + 1).toISOString());
    expect(byId.get("0xrung-1")!.outcome).toBe(1);
    const links = await client.query<{ completedAt: Date; addedMarketCount: number; removedMarketCount: number }>(
      `SELECT r."completedAt", r."addedMarketCount", r."removedMarketCount" FROM reconstitution_events r JOIN indices i ON i.id = r."indexId" WHERE i.ticker = 'PMX-BTC' ORDER BY r."completedAt"`,
    );
    expect(
      links.rows.some(
        (l) =>
          l.completedAt.getTime() >= at(24).getTime() &&
          l.completedAt.getTime() <= at(25).getTime() &&
          l.addedMarketCount === 1,
      ),
    ).toBe(true);
    expect(
      links.rows.some(
        (l) =>
          l.completedAt.getTime() >= at(grid12(47) + 1).getTime() &&
          l.completedAt.getTime() <= at(grid12(47) + 2).getTime() &&
          l.removedMarketCount === 1,
      ),
    ).toBe(true);
    const sources = await client.query<{ source: string; n: string }>(
      `SELECT source, count(*)::text AS n FROM market_snapshots WHERE "observedAt" < $1 GROUP BY source`,
      [launch],
    );
    expect(sources.rows).toEqual([{ source: "history", n: expect.any(String) }]);
  });

  it("takes in markets that opened and closed before the launch, which the venues list as closed only (no survivorship)", async () => {
    const m = await client.query<{
      conditionId: string;
      listedAt: Date;
      resolvedAt: Date | null;
      outcome: number | null;
    }>(
      `SELECT "conditionId", "listedAt", "resolvedAt", outcome FROM markets WHERE "conditionId" IN ('0xbtc-gone', 'kalshi:KXCPI-OLD-T2') ORDER BY "conditionId"`,
    );
    // btc-gone resolved: from its first 12-hour point through its last; KXCPI-OLD from Kalshi's historical tier (settled before the cutoff)
    const firstGone = grid12(111) < 100 ? grid12(111) + 12 : grid12(111);
    expect(m.rows).toEqual([
      { conditionId: "0xbtc-gone", listedAt: at(firstGone), resolvedAt: at(grid12(299) + 1), outcome: 0 },
      { conditionId: "kalshi:KXCPI-OLD-T2", listedAt: at(50), resolvedAt: at(200), outcome: 1 },
    ]);
    expect(fake.hits.some((h) => h.startsWith("/kalshi/historical/markets/KXCPI-OLD-T2/candlesticks?"))).toBe(true);
    expect(
      fake.hits.some(
        (h) =>
          h.startsWith("/kalshi/series/KXCPI/markets/KXCPI-OLD-T2/candlesticks") ||
          (h.startsWith("/kalshi/markets/candlesticks?") && h.includes("KXCPI-OLD-T2")),
      ),
    ).toBe(false);
    // the resolved Polymarket markets were read at 12-hour fidelity and are marked so
    const fidelity = await client.query<{ conditionId: string; historyFidelityMinutes: number | null }>(
      `SELECT "conditionId", "historyFidelityMinutes" FROM markets WHERE "historyFidelityMinutes" IS NOT NULL ORDER BY "conditionId"`,
    );
    expect(fidelity.rows).toEqual([
      { conditionId: "0xbtc-gone", historyFidelityMinutes: 720 },
      { conditionId: "0xrung-1", historyFidelityMinutes: 720 },
    ]);
    // never a call to a sunset offset list
    expect(fake.hits.filter((h) => /^\/gamma\/(events|markets)\?/.test(h))).toEqual([]);
    // in the basket while it traded, out of it from its settlement
    const held = async (ticker: string, conditionId: string, h: number) =>
      (
        await client.query(
          `SELECT 1 FROM composition_members m JOIN compositions c ON c.id = m."compositionId" JOIN indices i ON i.id = c."indexId"
           WHERE i.ticker = $1 AND m."conditionId" = $2 AND c."effectiveAt" = (SELECT max(c2."effectiveAt") FROM compositions c2 WHERE c2."indexId" = i.id AND c2."effectiveAt" <= $3)`,
          [ticker, conditionId, at(h)],
        )
      ).rowCount;
    expect(await held("PMX-BTC", "0xbtc-gone", 99)).toBe(0);
    expect(await held("PMX-BTC", "0xbtc-gone", 150)).toBe(1);
    expect(await held("PMX-BTC", "0xbtc-gone", 301)).toBe(0);
    expect(await held("KX-CPI", "kalshi:KXCPI-OLD-T2", 120)).toBe(1);
    expect(await held("KX-CPI", "kalshi:KXCPI-OLD-T2", 201)).toBe(0);
  });

  it("stores the hourly history prices as one row per market per day; only a resolution is a snapshot row", async () => {
    const hourly = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM market_snapshots WHERE "observedAt" < $1 AND NOT resolved`,
      [launch],
    );
    expect(hourly.rows).toEqual([{ n: "0" }]);
    const days = await client.query<{ rows: string; prices: string; wide: boolean }>(
      `SELECT count(*)::text AS rows, sum(cardinality(hours))::text AS prices, bool_or(cardinality(hours) > 24) AS wide FROM market_history_prices WHERE "conditionId" = '0xbtc-a'`,
    );
    const hours = (launch.getTime() - base.getTime()) / 3_600_000;
    expect(Number(days.rows[0]!.prices)).toBe(hours);
    expect(Number(days.rows[0]!.rows)).toBeLessThanOrEqual(Math.ceil(hours / 24) + 1);
    expect(days.rows[0]!.wide).toBe(false);
  });

  it("reads Kalshi's YES bid and ask closes: the price used is their mid", async () => {
    const cpi = await levels("KX-CPI");
    expect(cpi[0]!.level).toBe("100.00000000");
    const mid = (h: number) =>
      new Decimal((0.4 + 0.0005 * h - 0.02).toFixed(4)).plus((0.4 + 0.0005 * h + 0.02).toFixed(4)).dividedBy(2);
    expect(cpi[20]!.level).toBe(new Decimal(100).times(mid(20)).dividedBy(mid(0)).toFixed(8));
    expect(cpi[20]!.basis).toBe("back-calculated");
  });

  it("the closed month's bundle marks every back-calculated value, names the launch, and bundles:verify recomputes them all", async () => {
    const built = await cli("scripts/snapshots-build.ts", []);
    expect(built.status, built.stderr).toBe(0);
    const month = base.toISOString().slice(0, 7);
    const bundle = await client.query<{
      manifest: { schemaVersion: number; launches: Array<{ ticker: string; baseDate: string; launchAt: string }> };
    }>(`SELECT manifest FROM snapshot_bundles WHERE month = $1`, [month]);
    const manifest = bundle.rows[0]!.manifest;
    expect(manifest.schemaVersion).toBe(7);
    expect(manifest.launches.map((l) => [l.ticker, l.baseDate.slice(0, 19), l.launchAt.slice(0, 19)])).toEqual([
      ["KX-CPI", base.toISOString().slice(0, 19), launch.toISOString().slice(0, 19)],
      ["PMX-BTC", base.toISOString().slice(0, 19), launch.toISOString().slice(0, 19)],
    ]);
    const out = path.join(dir, "bundles", month);
    fs.mkdirSync(out, { recursive: true });
    const files = await client.query<{ name: string; content: string }>(
      `SELECT name, content FROM snapshot_files WHERE month = $1`,
      [month],
    );
    for (const f of files.rows) fs.writeFileSync(path.join(out, f.name), f.content);
    fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest));
    const levelsCsv = files.rows.find((f) => f.name === "index_levels.csv")!.content.split("\r\n");
    expect(levelsCsv[0]).toMatch(/,history_fidelity_minutes,basis$/);
    expect(
      levelsCsv
        .slice(1)
        .filter(Boolean)
        .every((line) => line.endsWith(",back-calculated")),
    ).toBe(true);
    // the hours holding a market priced from 12-hour points (rung 1 until its resolution, btc-gone
    // while it traded) are marked 720, the others not (the month holds the base hour: rung 1 is in it)
    const firstGone = grid12(111) < 100 ? grid12(111) + 12 : grid12(111);
    const coarseHour = (h: number) => (h >= 0 && h < grid12(47)) || (h > firstGone && h < grid12(299));
    const plainHour = (h: number) => (h > grid12(47) + 1 && h < firstGone) || h > grid12(299) + 1;
    const cells = levelsCsv
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(","));
    const hourOf = (r: string[]) => (Date.parse(r[1]!.replace(/(\.\d{3})\d*Z$/, "$1Z")) - base.getTime()) / HOUR;
    const fidelityOf = (ticker: string, test: (h: number) => boolean) => [
      ...new Set(cells.filter((r) => r[0] === ticker && test(hourOf(r))).map((r) => r.at(-2))),
    ];
    expect(fidelityOf("PMX-BTC", coarseHour)).toEqual(["720"]);
    expect(fidelityOf("PMX-BTC", plainHour)).not.toContain("720");
    expect(fidelityOf("KX-CPI", () => true)).toEqual([""]);
    const verify = await cli("scripts/bundles-verify.ts", [path.join(dir, "bundles")]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    const rows = levelsCsv.slice(1).filter(Boolean).length;
    expect(verify.stdout).toContain(
      `index levels: ${rows} hours of 2 indices recomputed (${rows} of them back-calculated`,
    );
    expect(verify.stdout).toContain(`manifest: ${files.rows.length} files checked (sha256, bytes, rows); 0 differ`);
    expect(verify.stdout).toContain(
      "OK: every file matches its manifest and every published value recomputes from the bundle files",
    );
  });

  it("`npm run backfill -- TICKER` re-reads the history; unchanged history restates nothing, an unknown ticker is refused", async () => {
    const again = await cli("scripts/backfill.ts", ["PMX-BTC"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("back-calculated PMX-BTC");
    expect(again.stdout).toContain("0 published value(s) restated");
    const unknown = await cli("scripts/backfill.ts", ["NOPE-1"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("NOPE-1: no entry of the applied catalog with a base date");
  });

  it("`npm run backfill -- TICKER` after the venue corrected one price: the price is replaced and its hour restated with revision + 1; the closed month's bundle stays as published", async () => {
    const h = 10;
    const month = base.toISOString().slice(0, 7);
    const published = await client.query<{ sha256: string; content: string }>(
      `SELECT sha256, content FROM snapshot_files WHERE month = $1 AND name = 'index_levels.csv'`,
      [month],
    );
    const before = await levels("PMX-BTC");
    // the venue corrects tok-a's price of one back-calculated hour
    const history = fake.history.poly.get("tok-a")!;
    expect(history[h]!.t).toBe(sec(at(h)));
    history[h] = { t: sec(at(h)), bid: 0.55, ask: 0.55 };
    const r = await cli("scripts/backfill.ts", ["PMX-BTC"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `1 stored price(s) the venue has corrected since: replaced, and the hours from ${at(h).toISOString()} recomputed`,
    );
    expect(r.stdout).toContain("1 published value(s) restated");
    const stored = await client.query<{ mid: string }>(
      `SELECT (mid[array_position(hours, $2::smallint)])::text AS mid FROM market_history_prices WHERE "conditionId" = '0xbtc-a' AND day = date_trunc('day', $1::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
      [at(h), at(h).getUTCHours()],
    );
    expect(stored.rows).toEqual([{ mid: "0.55000000" }]);

    // the hour, by the documented rule with the corrected price; every other hour as before
    const members = await client.query<{ conditionId: string; targetWeight: string }>(
      `SELECT m."conditionId", m."targetWeight"::text AS "targetWeight" FROM composition_members m JOIN compositions c ON c.id = m."compositionId" JOIN indices i ON i.id = c."indexId" WHERE i.ticker = 'PMX-BTC' AND c.version = 'v1'`,
    );
    // rung 1 by the 12-hour rule of a resolved market, as in the back-calculation's own test above
    const price: Record<string, (x: number) => number> = {
      "0xbtc-a": (x) => (x === h ? 0.55 : pa(x)),
      "0xrung-1": (x) => pl(Math.max(0, grid12(x))),
      "0xrung-2": () => 0.5,
    };
    const basket = (x: number) =>
      members.rows.reduce(
        (sum, m) => sum.plus(new Decimal(m.targetWeight).times(price[m.conditionId]!(x).toFixed(4))),
        new Decimal(0),
      );
    const expected = new Decimal(100)
      .times(basket(h))
      .dividedBy(basket(0))
      .toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN)
      .toFixed(8);
    const after = await levels("PMX-BTC");
    expect(before[h]!.level).not.toBe(expected);
    expect(after[h]!.level).toBe(expected);
    expect(after.filter((l, i) => i !== h && l.level !== before[i]!.level)).toEqual([]);
    const revisions = await client.query<{ t: Date; revision: number }>(
      `SELECT l.t, l.revision FROM index_levels l JOIN indices i ON i.id = l."indexId" WHERE i.ticker = 'PMX-BTC' AND l.revision > 0`,
    );
    expect(revisions.rows).toEqual([{ t: at(h), revision: 1 }]);
    const restated = await client.query<{ revision: number; previous: string; value: string; reason: string }>(
      `SELECT revision, previous, value, detail->>'reason' AS reason FROM restatements WHERE ticker = 'PMX-BTC' AND t = $1`,
      [at(h)],
    );
    expect(restated.rows).toEqual([
      {
        revision: 1,
        previous: before[h]!.level,
        value: expected,
        reason: "back-calculation: the venue corrected its price history",
      },
    ]);

    // published months are never rewritten: the closed month keeps the first-published value
    const now = await client.query<{ sha256: string }>(
      `SELECT sha256 FROM snapshot_files WHERE month = $1 AND name = 'index_levels.csv'`,
      [month],
    );
    expect(now.rows).toEqual([{ sha256: published.rows[0]!.sha256 }]);
    expect(published.rows[0]!.content).toContain(
      `PMX-BTC,${at(h).toISOString().slice(0, 19)}.000000Z,${before[h]!.level},0,`,
    );

    // read again, the same corrected history changes nothing
    const again = await cli("scripts/backfill.ts", ["PMX-BTC"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toContain("corrected since");
    expect(again.stdout).toContain("0 published value(s) restated");
  });

  it("an hour the collector missed is filled from the venue's history once it answers again: marked history-filled and restated", async () => {
    const missed = new Date(launch.getTime() + HOUR);
    const next = new Date(launch.getTime() + 2 * HOUR);
    // the CLOB's books (read in batches) fail for the hour
    fake.faults.set("/clob/book", [{ status: 500, times: 8 }]);
    const down = await cli("scripts/collect.ts", ["--once", "--at", missed.toISOString()]);
    expect(down.status, down.stderr).toBe(0);
    expect(down.stdout).toMatch(/polymarket: .* [1-9] stale/);
    const before = (await levels("PMX-BTC")).find((l) => l.t.getTime() === missed.getTime())!;
    expect(before.basis).toBe("live");
    // the venue's history has the hour the books could not be read
    fake.faults.delete("/clob/book");
    fake.history.poly.get("tok-a")!.push({ t: sec(missed), bid: 0.9, ask: 0.9 });
    const back = await cli("scripts/collect.ts", ["--once", "--at", next.toISOString()]);
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/filled 1 missed market-hour\(s\) of \d market\(s\)/);
    const after = (await levels("PMX-BTC")).find((l) => l.t.getTime() === missed.getTime())!;
    expect(after.basis).toBe("history-filled");
    expect(after.level).not.toBe(before.level);
    const restated = await client.query<{ revision: number; previous: string; value: string }>(
      `SELECT revision, previous, value FROM restatements WHERE ticker = 'PMX-BTC' AND t = $1`,
      [missed],
    );
    expect(restated.rows).toEqual([{ revision: 1, previous: before.level, value: after.level }]);
    const snap = await client.query<{ source: string; mid: string }>(
      `SELECT source, mid::text AS mid FROM market_snapshots WHERE "conditionId" = '0xbtc-a' AND "observedAt" = $1`,
      [missed],
    );
    expect(snap.rows).toEqual([{ source: "history", mid: "0.90000000" }]);
  });

  it("the pages disclose the base and launch dates and shade the back-calculated part; /v1 keeps exactly its fields", async () => {
    if (!fs.existsSync(".next/BUILD_ID")) throw new Error("needs `npm run build` first");
    server = await startServer({
      DATABASE_URL: url,
      REDIS_URL: "",
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      POLYMARKET_GAMMA_URL: fake.gammaUrl,
      POLYMARKET_CLOB_URL: fake.clobUrl,
      KALSHI_API_URL: fake.kalshiUrl,
    });
    const html = await (await fetch(`${server.baseUrl}/indices/PMX-BTC?range=90`)).text();
    expect(html).toContain('data-testid="base-date"');
    expect(html).toContain('data-testid="launch-date"');
    expect(html).toContain('data-testid="back-calculated-legend"');
    expect(html).toContain("1 later hour filled from venue history");
    const changelog = await (await fetch(`${server.baseUrl}/changelog`)).text();
    expect(changelog).toContain("levels before the launch are back-calculated");
    const minted = await cli("scripts/keys.ts", ["mint", "--email", `backcalc-${Date.now()}@example.com`]);
    const key = minted.stdout.trim();
    expect(key, minted.stderr).toMatch(/^svc_live_/);
    const latest = (await (
      await fetch(`${server.baseUrl}/v1/indices/PMX-BTC/latest`, { headers: { Authorization: `Bearer ${key}` } })
    ).json()) as { data: Record<string, unknown> };
    expect(latest.data.inceptionAt).toBe(`${base.toISOString().slice(0, 19)}.000000Z`);
    expect(Object.keys(latest.data).filter((k) => /launch|basis|back/i.test(k))).toEqual([]);
  });
});
