import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogHash } from "@/lib/catalog/compile";
import { validateCatalog } from "@/lib/catalog/validate";
import { VOL_ROUNDING, verifyBundles } from "@/lib/snapshots/verify-bundles";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";
import { startServer, type RunningServer } from "../support/server";
import { kalshiBookFp, polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";
import {
  cpiEvent,
  cpiIndex,
  cryptoEvent,
  cryptoIndex,
  fedVolatility,
  tsxCli,
  venueEnv,
} from "../support/venue-fixtures";
import { waitFor } from "@/tests/support/wait-for";

// The service without the demo: its own catalog, venues answering from a local fake in their
// documented shapes, the collector run hour after hour as an operator would (`npm run collect`),
// and /v1 read end to end from the production server. The hours straddle the start of a month, so
// the month before closes and its bundle is built from venue-fed values.

const HOUR = 3_600_000;
const testStart = Date.now();
// the first hour of the month two hours ago: every collected hour lies in the past
const twoHoursAgo = new Date(testStart - 2 * HOUR);
const monthStart = Date.UTC(twoHoursAgo.getUTCFullYear(), twoHoursAgo.getUTCMonth(), 1);
const hours = [-3, -2, -1, 0, 1].map((k) => new Date(monthStart + k * HOUR));
const closedMonth = hours[0]!.toISOString().slice(0, 7);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-venues-"));
const name = uniqueName("pmb_venues");
let url = "";
let fake: FakeVenues;
let server: RunningServer;
let key = "";

const catalog = (over: { maxSpread?: number; dropCpi?: boolean } = {}) => ({
  version: 1,
  indices: [
    cryptoIndex(
      { inceptionAt: hours[0]! },
      { eligibility: { minDepthUsd: 100, maxSpread: over.maxSpread ?? 0.1, minDaysToSettlement: 0 } },
    ),
    ...(over.dropCpi ? [] : [cpiIndex({ inceptionAt: hours[0]! })]),
  ],
  volatility: [fedVolatility({ inceptionAt: hours[0]! })],
});

const cli = tsxCli(() => venueEnv(fake, { DATABASE_URL: url, COLLECT_TIMEOUT_MS: "3000" }));
const v1 = async (p: string) => {
  const res = await fetch(`${server.baseUrl}${p}`, { headers: { Authorization: `Bearer ${key}` } });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
// the YES mid of each CLOB book as set for each collected hour
const mids: Array<Map<string, Decimal>> = [];
const midOf = (book: ReturnType<typeof polyBook>) =>
  Decimal.max(...book.bids.map((l) => l.price))
    .plus(Decimal.min(...book.asks.map((l) => l.price)))
    .dividedBy(2);
const settle = (d: Date) => new Date(d.getTime() + 40 * 86_400_000).toISOString();

function setPrices(step: number) {
  const m = (p: number) => Math.round(p * 100) / 100;
  ["btc-a", "btc-b", "btc-c", "btc-d"].forEach((slug, i) =>
    fake.poly.books.set(`tok-${slug}`, polyBook(m(0.3 + 0.1 * i + 0.02 * step), m(0.33 + 0.1 * i + 0.02 * step))),
  );
  fake.poly.books.set("tok-cut", polyBook(m(0.2 + 0.03 * step), m(0.22 + 0.03 * step), 5000));
  fake.poly.books.set("tok-hold", polyBook(m(0.6 - 0.04 * step), m(0.62 - 0.04 * step), 5000));
  fake.poly.books.set("tok-hike", polyBook(m(0.17 + 0.01 * step), m(0.19 + 0.01 * step), 5000));
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(m(0.4 + 0.01 * step), m(0.43 + 0.01 * step)));
  // levels in descending order (public captures show both orders): dollar strings, as Kalshi answers since its integer cents were removed
  const [bid, ask] = [m(0.55 - 0.01 * step), m(0.58 - 0.01 * step)];
  fake.kalshi.books.set("KXCPI-B-T3", {
    orderbook_fp: {
      yes_dollars: [
        [bid.toFixed(4), "500.00"],
        [(bid - 0.02).toFixed(4), "500.00"],
      ],
      no_dollars: [[(1 - ask).toFixed(4), "500.00"]],
    },
  });
  fake.poly.books.set("tok-pause", polyBook(m(0.04 + 0.01 * step), m(0.06 + 0.01 * step), 5000));
}

beforeAll(async () => {
  url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  fake = await startFakeVenues();
  const end = settle(hours[0]!);
  fake.poly.events.push(...["btc-a", "btc-b", "btc-c"].map((slug) => cryptoEvent(slug, end)), {
    slug: "fed-decision-december",
    title: "Fed decision in December",
    negRisk: true,
    // augmented: its explicit "Other" is a placeholder the venue says to ignore, never a leg
    negRiskAugmented: true,
    tags: ["economy"],
    endDate: end,
    markets: [
      ...["Cut", "Hold", "Hike"].map((g) => ({
        conditionId: `0x${g.toLowerCase()}`,
        question: `Fed: ${g}?`,
        groupItemTitle: g,
        yesToken: `tok-${g.toLowerCase()}`,
        endDate: end,
      })),
      {
        conditionId: "0xother",
        question: "Fed: Other?",
        groupItemTitle: "Other",
        yesToken: "tok-other",
        endDate: end,
        negRiskOther: true,
      },
    ],
  });
  fake.kalshi.events.push(...["A", "B"].map((x) => cpiEvent(x, end)));
  setPrices(0);
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog(), null, 2));
  server = await startServer({
    DATABASE_URL: url,
    REDIS_URL: "",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    CATALOG_FILE: file,
    POLYMARKET_GAMMA_URL: fake.gammaUrl,
    POLYMARKET_CLOB_URL: fake.clobUrl,
    KALSHI_API_URL: fake.kalshiUrl,
  });
  // limits out of the way: the tests poll /v1 while they wait for the server to catch up
  const minted = await cli("scripts/keys.ts", [
    "mint",
    "--email",
    `venues-${Date.now()}@example.com`,
    "--limit-minute",
    "100000",
    "--limit-day",
    "1000000",
  ]);
  key = minted.stdout.trim();
  expect(key, minted.stderr).toMatch(/^svc_live_/);
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await dropDatabase(name);
});

describe("the service on venue markets, without the demo", () => {
  it("collects hour after hour and publishes indices, reconstitutions and a volatility series from the venues' reads", async () => {
    for (const [step, hour] of hours.entries()) {
      setPrices(step);
      if (step === 2) {
        // btc-a resolves YES, btc-d lists
        const a = fake.poly.events.find((e) => e.slug === "btc-a")!;
        a.closed = true;
        a.markets[0]!.closed = true;
        a.markets[0]!.outcomePrices = ["1", "0"];
        fake.poly.events.push({
          slug: "btc-d",
          title: "BTC d",
          negRisk: false,
          tags: ["crypto"],
          endDate: settle(hour),
          markets: [
            { conditionId: "0xbtc-d", question: "Will BTC reach d?", yesToken: "tok-btc-d", endDate: settle(hour) },
          ],
        });
      }
      if (step === 3) {
        // the Fed event lists a fourth outcome after the series was discovered: it joins the partition
        fake.poly.events
          .find((e) => e.slug === "fed-decision-december")!
          .markets.push({
            conditionId: "0xpause",
            question: "Fed: Pause?",
            groupItemTitle: "Pause",
            yesToken: "tok-pause",
            endDate: settle(hours[0]!),
          });
        fake.faults.set("/kalshi/markets/KXCPI-B-T3/orderbook", [{ status: 500, times: 10 }]);
        fake.faults.set("/clob/books", [{ status: 429, retryAfter: "1" }]);
      }
      mids[step] = new Map(
        [...fake.poly.books].map(([token, book]) => [token, midOf(book as ReturnType<typeof polyBook>)]),
      );
      const r = await cli("scripts/collect.ts", ["--once", "--at", hour.toISOString()]);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`collected ${hour.toISOString()}`);
      if (step === 3) {
        expect(r.stdout).toMatch(/kalshi: .* 1 stale/);
        expect(r.stdout).toContain("legs of PMV-FEDDEC: 0xpause joined");
      }
    }
    // books in batches (POST /books), never one GET /book per market; the settled market is looked
    // up once (closed=true, the hour it closed) and never again
    expect(fake.hits.filter((h) => h.startsWith("/clob/book?"))).toEqual([]);
    expect(fake.hits.filter((h) => h.startsWith("POST /clob/books")).length).toBeGreaterThanOrEqual(hours.length);
    expect(fake.hits.filter((h) => h.startsWith("/gamma/markets/keyset?") && h.includes("0xbtc-a"))).toEqual([
      expect.stringContaining("closed=true"),
    ]);
    // The read models refresh within their 2 s cache: wait until they show the last collected hour.
    const lastHour = `${hours[4]!.toISOString().slice(0, 19)}.000000Z`;
    const [list, latest] = await waitFor("the collected hours on /v1", async () => {
      const pair = [await v1("/v1/indices"), await v1("/v1/indices/pmx-btc/latest")] as const;
      return pair[0].body.data?.indices.length === 2 && pair[1].body.data?.computedAt === lastHour && pair;
    });
    expect(list.status).toBe(200);
    expect(list.body.data.indices.map((i: { ticker: string }) => i.ticker).sort()).toEqual(["KX-CPI", "PMX-BTC"]);

    expect(latest.status).toBe(200);
    expect(latest.body.data.computedAt).toBe(`${hours[4]!.toISOString().slice(0, 19)}.000000Z`);
    expect(latest.body.data.indexLevel).not.toBe("100.00000000");
    expect(latest.body.data.methodologyVersion).toBe("idx-1.0");

    const history = await v1(`/v1/indices/PMX-BTC/history?interval=1h&start=${hours[0]!.toISOString()}`);
    expect(history.body.data.points.map((p: { t: string }) => p.t.slice(0, 19))).toEqual(
      hours.map((h) => h.toISOString().slice(0, 19)),
    );
    expect(history.body.data.points[0].indexLevel).toBe("100.00000000");

    const recon = await v1("/v1/indices/PMX-BTC/reconstitutions");
    expect(recon.body.data.events.length).toBeGreaterThanOrEqual(1);
    expect(recon.body.data.events.some((e: { addedMarketCount: number }) => e.addedMarketCount === 1)).toBe(true);

    // btc-a's event closed at hours[2], settled YES: discovery no longer lists it, the look-up of
    // the held market (closed=true) records the resolution, so hours[2] is a reconstitution and
    // its level counts btc-a at its settlement of 1 (L = 100 * basket(2) / basket(0), no
    // reconstitution before), never the last mid carried as stale.
    const closing = hours[2]!.toISOString().slice(0, 19);
    expect(recon.body.data.events.map((e: { completedAt: string }) => e.completedAt.slice(0, 19))).toContain(closing);
    const basket = (step: number, settled: Record<string, Decimal> = {}) =>
      ["btc-a", "btc-b", "btc-c"].reduce(
        (sum, slug) => sum.plus(settled[slug] ?? mids[step]!.get(`tok-${slug}`)!),
        new Decimal(0),
      );
    const expected = new Decimal(100)
      .times(basket(2, { "btc-a": new Decimal(1) }))
      .dividedBy(basket(0))
      .toFixed(8);
    const atClosing = history.body.data.points.find((p: { t: string }) => p.t.startsWith(closing));
    expect(atClosing).toMatchObject({ indexLevel: expected, stale: false });
    expect(history.body.data.points.slice(2).map((p: { stale: boolean }) => p.stale)).toEqual([false, false, false]);

    const cpi = await v1("/v1/indices/KX-CPI/latest");
    expect(cpi.body.data.dataQuality).toMatchObject({ totalMarketsCount: 2, staleMarketsCount: 0 });

    const vol = await v1("/v1/volatility/PMV-FEDDEC/latest");
    expect(vol.status, JSON.stringify(vol.body)).toBe(200);
    expect(vol.body.data.tick.components.map((c: { label: string }) => c.label)).toEqual([
      "Fed: Cut?",
      "Fed: Hold?",
      "Fed: Hike?",
      "Fed: Pause?",
    ]);
    expect(vol.body.data.tick.labels.composition).toMatchObject({ n: 4, version: "v2" });
    expect(vol.body.data.series.definitionLine).toContain('"Fed decision in December" partition (4 legs)');
    expect(vol.body.data.series.settlementDate).toBe(settle(hours[0]!).slice(0, 10));
    const volHistory = await v1("/v1/volatility/PMV-FEDDEC/history?includeGated=true");
    expect(volHistory.body.data.count).toBe(5);
  }, 300_000);

  it("closes the month: its bundle names the catalog in force and every venue-fed value recomputes from the files", async () => {
    const built = await cli("scripts/snapshots-build.ts", []);
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toBe(`built ${closedMonth}\n`);

    const downloads = await v1("/v1/downloads");
    expect(downloads.status).toBe(200);
    const latest = await fetch(downloads.body.data.latestManifestUrl, {
      headers: { Authorization: `Bearer ${key}` },
    }).then((r) => r.json());
    const entry = latest.months.find((m: { month: string }) => m.month === closedMonth);
    expect(latest.months.map((m: { month: string }) => m.month)).toEqual([closedMonth]);
    const manifest = await fetch(entry.manifestUrl, { headers: { Authorization: `Bearer ${key}` } }).then((r) =>
      r.json(),
    );
    // the catalog applied at start governs the month, though it was applied after it (inception in the past)
    const applied = catalogHash(
      validateCatalog("catalog.json", fs.readFileSync(path.join(dir, "catalog.json"), "utf8")),
    );
    expect(manifest.catalogs).toEqual([{ sha256: applied, appliedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) }]);
    expect(Date.parse(manifest.catalogs[0].appliedAt)).toBeGreaterThanOrEqual(testStart - 60_000);

    const monthDir = path.join(dir, "bundles", closedMonth);
    fs.mkdirSync(monthDir, { recursive: true });
    for (const f of manifest.files as Array<{ name: string; url: string; sha256: string }>) {
      const res = await fetch(f.url, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(crypto.createHash("sha256").update(bytes).digest("hex")).toBe(f.sha256);
      fs.writeFileSync(path.join(monthDir, f.name), bytes);
    }
    const levels = fs.readFileSync(path.join(monthDir, "index_levels.csv"), "utf8").trim().split("\r\n").slice(1);
    expect(levels.length).toBe(6); // two indices, three hours before the month's end
    expect(fs.readFileSync(path.join(monthDir, "chain_links.csv"), "utf8")).toContain("PMX-BTC");

    fs.writeFileSync(path.join(monthDir, "manifest.json"), JSON.stringify(manifest));
    const report = verifyBundles(path.join(dir, "bundles"));
    expect(report.months).toEqual([closedMonth]);
    expect(report.integrity.failures).toEqual([]);
    expect(report.index.failures).toEqual([]);
    expect(report.index).toMatchObject({ hours: 6, indices: 2 });
    expect(Number(report.index.maxLevelDiff)).toBe(0);
    expect(Number(report.index.maxBaseDiff)).toBe(0);
    expect(report.volatility.failures).toEqual([]);
    expect(report.volatility).toMatchObject({ computations: 3, series: 1, gateMismatches: 0 });
    expect(report.volatility.valuesChecked).toBeGreaterThan(0);
    expect(report.volatility.maxValueDiff).toBeLessThanOrEqual(VOL_ROUNDING);
  }, 120_000);

  it("refuses an invalid catalog whole with the JSON path of every problem, and applies a changed one without rewriting history", async () => {
    const bad = path.join(dir, "bad.json");
    const broken = catalog();
    (broken.indices[0] as Record<string, unknown>).maturityType = "FOREVER";
    broken.volatility[0]!.headlineTenorDays = 90;
    fs.writeFileSync(bad, JSON.stringify(broken));
    const refused = await cli("scripts/catalog.ts", ["apply", bad]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("$.indices[0].maturityType");
    expect(refused.stderr).toContain("$.volatility[0].headlineTenorDays: 90 is not one of tenorsDays (7, 30)");

    const before = await v1(`/v1/indices/PMX-BTC/history?interval=1h&start=${hours[0]!.toISOString()}`);
    const next = path.join(dir, "next.json");
    fs.writeFileSync(next, JSON.stringify(catalog({ maxSpread: 0.05, dropCpi: true })));
    const checked = await cli("scripts/catalog.ts", ["validate", next]);
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toContain("valid, 1 indices and 1 volatility series");
    const applied = await cli("scripts/catalog.ts", ["apply", next]);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("PMX-BTC: methodologyVersion idx-1.1");
    expect(applied.stdout).toContain("ceased (removed from the catalog): KX-CPI");
    const [btc, cpi] = await waitFor("the applied catalog on /v1", async () => {
      const pair = [await v1("/v1/indices/PMX-BTC/latest"), await v1("/v1/indices/KX-CPI/latest")] as const;
      for (const r of pair)
        if (r.status !== 200) throw new Error(`/v1 answered ${r.status}: ${JSON.stringify(r.body.error)}`);
      return (
        pair[0].body.data?.methodologyVersion === "idx-1.1" && pair[1].body.data?.publicStatus === "ceased" && pair
      );
    });
    expect(btc.body.data.methodologyVersion).toBe("idx-1.1");
    expect(cpi.body.data.publicStatus).toBe("ceased");
    expect(cpi.body.data.ceasedAt).not.toBeNull();
    const after = await v1(`/v1/indices/PMX-BTC/history?interval=1h&start=${hours[0]!.toISOString()}`);
    expect(after.body.data.points).toEqual(before.body.data.points);
  }, 120_000);
});
