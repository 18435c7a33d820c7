import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchSettings } from "./lib/bench-settings";

// `npm run bench:kalshi`: a back-calculation of 800 Kalshi markets (20 series of 40) over
// BENCH_BACKCALC_DAYS (90) days on a fresh PostgreSQL database, against the local fake venues, with
// the venue settings of the configuration (KALSHI_RPS, COLLECT_CONCURRENCY: their defaults unless
// set). Kalshi bills a batch per item (10 tokens a ticker: Kalshi API docs, page
// getting_started/rate_limits), so the read is paced by the tickers asked, not the requests.
// Prints figures; it is a benchmark, not a test.

const HOUR = 3_600_000;
const SERIES = 20;
const PER = 40;

async function main() {
  const DAYS = benchSettings.backCalculationDays;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bench-kalshi-"));
  process.env.DATA_DIR = dir;
  const pg = await import("../tests/integration/support/pg");
  const dbName = pg.uniqueName("pmb_bench_kalshi");
  const made = await pg.migratedDatabase(dbName);
  await made.prisma.$disconnect();
  await made.pool.end();
  process.env.DATABASE_URL = made.url;
  const { root, closeRoot } = await import("@/lib/root");
  const { config } = await import("@/lib/config");
  const { applyCatalog } = await import("@/lib/catalog/apply-catalog");
  const { validateCatalog } = await import("@/lib/catalog/validate");
  const { backCalculate } = await import("@/lib/ingest/back-calculate");
  const { createVenues, venueEndpoints } = await import("@/lib/venues/connect");
  const { startFakeVenues } = await import("../tests/support/fake-venues");

  const launch = Math.floor(Date.now() / HOUR) * HOUR;
  const base = launch - DAYS * 24 * HOUR;
  const end = new Date(launch + 30 * 86_400_000).toISOString();
  const fake = await startFakeVenues();
  fake.history.generate = (_venue, key, start, stop) => {
    const phase = [...key].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 997, 7);
    const out = [];
    for (
      let t = Math.ceil(Math.max(start, base / 1000) / 3600) * 3600;
      t <= Math.min(stop, (launch - HOUR) / 1000);
      t += 3600
    ) {
      const p = 0.3 + 0.2 * Math.sin(t / 3600 / 24 + phase);
      out.push({ t, bid: +(p - 0.01).toFixed(4), ask: +(p + 0.01).toFixed(4) });
    }
    return out;
  };
  for (let s = 0; s < SERIES; s++)
    for (let i = 0; i < PER; i++)
      fake.kalshi.events.push({
        event_ticker: `KXS${s}-E${i}`,
        series_ticker: `KXS${s}`,
        title: `Event ${s} ${i}`,
        mutually_exclusive: false,
        markets: [{ ticker: `KXS${s}-E${i}-T1`, title: `KXS${s}-E${i}-T1?`, status: "active", close_time: end }],
      });
  const indices = Array.from({ length: SERIES }, (_, s) => ({
    ticker: `KB-S${s}`,
    name: `Series ${s}`,
    description: "Bench.",
    inceptionAt: new Date(base).toISOString(),
    launchAt: new Date(launch).toISOString(),
    maturityType: "PERPETUAL",
    universe: { venue: "kalshi", seriesTickers: [`KXS${s}`] },
  }));
  const prisma = await root().db();
  const catalog = validateCatalog("bench.json", JSON.stringify({ version: 1, indices }));
  await prisma.$transaction(
    (tx) =>
      applyCatalog(tx, "bench.json", catalog, {
        start: new Date(launch),
        events: new Map(),
        nextHour: new Date(0),
        launchHour: new Date(launch),
      }),
    { timeout: 120_000 },
  );
  const endpoints = {
    ...venueEndpoints(config()),
    polymarketGammaUrl: fake.gammaUrl,
    polymarketClobUrl: fake.clobUrl,
    kalshiApiUrl: fake.kalshiUrl,
  };
  const t0 = performance.now();
  const r = await backCalculate(prisma, null, createVenues(endpoints));
  const t1 = performance.now();
  const candles = fake.hits.filter((h) => h.startsWith("/kalshi/markets/candlesticks?"));
  const billed = candles.reduce(
    (n, h) => n + new URL(h, "http://x").searchParams.get("market_tickers")!.split(",").length,
    0,
  );
  await fake.close();
  await closeRoot();
  await pg.dropDatabase(dbName);
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    `Kalshi back-calculation: ${DAYS} days, ${indices.length} indices over ${r.markets} markets, KALSHI_RPS ${endpoints.rps?.kalshi}, concurrency ${endpoints.concurrency}`,
  );
  console.log(
    `  total          : ${((t1 - t0) / 1000).toFixed(1)} s (of which reading the venue: ${(r.timing.read / 1000).toFixed(1)} s)`,
  );
  console.log(
    `  candlesticks   : ${candles.length} batch requests, ${billed} tickers billed (${billed * 10} tokens at 10 a ticker); ${r.requests} requests in all`,
  );
  console.log(`  stored         : ${r.prices} hourly prices; ${r.hours} hours computed; waiting: ${r.waiting.length}`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
