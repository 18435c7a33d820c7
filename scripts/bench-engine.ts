import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchSettings } from "./lib/bench-settings";

// `npm run bench:engine`: the demo's 120-day backfill from an empty embedded database, timed,
// with peak memory, a collector run, then a 90-day back-calculation (PostgreSQL by default).
// Prints figures; it is a benchmark, not a test.
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bench-engine-"));
  process.env.DATA_DIR = dir;
  delete process.env.DATABASE_URL;
  const { root, closeRoot } = await import("@/lib/root");
  const { catchUp, BACKFILL_DAYS, flushTiming } = await import("@/lib/ingest/engine-runner");
  const { config } = await import("@/lib/config");
  // memoryUsage.rss() alone: memoryUsage() also walks the heap spaces, a cost the sampler would add to the figures
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  const prisma = await root().db();
  const opened = performance.now();
  const r = await catchUp(prisma, { seed: config().DEMO_SEED });
  const done = performance.now();
  clearInterval(sampler);
  const counts = {
    levels: await prisma.indexLevel.count(),
    ticks: await prisma.volatilityTick.count(),
    snapshots: await prisma.marketSnapshot.count(),
    reconstitutions: await prisma.reconstitutionEvent.count(),
  };
  const collector = await benchCollector(prisma);
  await closeRoot();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`backfill of ${BACKFILL_DAYS} days (${r.hours} hours) into embedded PGlite`);
  console.log(`  open + migrate : ${((opened - t0) / 1000).toFixed(1)} s`);
  console.log(`  compute + write: ${((done - opened) / 1000).toFixed(1)} s   (target: under 60 s)`);
  console.log(`  of which writes: ${(flushTiming.ms / 1000).toFixed(1)} s`);
  console.log(`  peak RSS       : ${(peak / 2 ** 20).toFixed(0)} MiB   (target: under 1024 MiB)`);
  console.log(`  rows           : ${JSON.stringify(counts)}`);
  console.log(
    `collector tick: ${collector.indices} indices over ${collector.markets} markets against the local fake venues`,
  );
  console.log(
    `  first run (discovery, ${collector.markets} new market rows, books): ${(collector.firstMs / 1000).toFixed(1)} s`,
  );
  console.log(`  next run (same universe, moved prices)      : ${(collector.secondMs / 1000).toFixed(1)} s`);
  console.log(`  requests per run: ${collector.requests}`);
  console.log(`  peak RSS during the runs: ${(collector.peak / 2 ** 20).toFixed(0)} MiB`);
}

/** A catalog of 50 indices over 2,000 venue markets (Polymarket tags, Kalshi series) against the test suite's fake venues. */
async function benchCollector(prisma: import("@/lib/db").Db) {
  const { startFakeVenues, polyBook, kalshiBookFp } = await import("../tests/support/fake-venues");
  const { applyCatalog } = await import("@/lib/catalog/apply-catalog");
  const { validateCatalog } = await import("@/lib/catalog/validate");
  const { collect } = await import("@/lib/ingest/collector");
  const { createVenues } = await import("@/lib/venues/connect");
  const fake = await startFakeVenues();
  const end = new Date(Date.now() + 30 * 86_400_000).toISOString();
  seedVenues(fake, end, { poly: polyBook(0.4, 0.43), kalshi: kalshiBookFp(0.5, 0.53) });
  const indices = benchIndices({ inceptionAt: "start" });
  const catalog = validateCatalog("bench.json", JSON.stringify({ version: 1, indices }));
  await prisma.$transaction(
    (tx) => applyCatalog(tx, "bench.json", catalog, { start: new Date(), events: new Map(), nextHour: new Date(0) }),
    { timeout: 120_000 },
  );
  const venues = createVenues({
    polymarketGammaUrl: fake.gammaUrl,
    polymarketClobUrl: fake.clobUrl,
    kalshiApiUrl: fake.kalshiUrl,
    concurrency: 4,
    timeoutMs: 10_000,
  });
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const t0 = performance.now();
  const first = await collect(prisma, venues, { now: new Date(hour + 3_600_000 * 24) });
  const t1 = performance.now();
  for (const [k] of fake.poly.books) fake.poly.books.set(k, polyBook(0.41, 0.44));
  const second = await collect(prisma, venues, { now: new Date(hour + 3_600_000 * 25) });
  const t2 = performance.now();
  clearInterval(sampler);
  await fake.close();
  return {
    indices: indices.length,
    markets: first.venues.reduce((a, v) => a + v.markets, 0),
    firstMs: t1 - t0,
    secondMs: t2 - t1,
    requests: second.venues.map((v) => `${v.venue} ${v.requests}`).join(", "),
    peak,
  };
}

/**
 * Back-calculation of 90 days for 50 indices over 2,000 markets (30 Polymarket tags and 20 Kalshi
 * series of 40 markets each) from a new database (a fresh one on the local PostgreSQL server, or
 * the embedded one with BENCH_DATABASE=embedded), against the local fake venues serving
 * hourly price history. Runs in its own process (spawned by main), and the venues in another
 * (as real venues are elsewhere), so its CPU and memory figures are the service's alone.
 */
async function benchBackCalculation() {
  const DAYS = benchSettings.backCalculationDays;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bench-backcalc-"));
  process.env.DATA_DIR = dir;
  // PostgreSQL by default (how a vendor runs the service); BENCH_DATABASE=embedded for PGlite
  const database = benchSettings.backCalculationDatabase;
  const pg = database === "postgres" ? await import("../tests/integration/support/pg") : null;
  const dbName = pg ? pg.uniqueName("pmb_bench_backcalc") : "";
  if (pg) {
    const made = await pg.migratedDatabase(dbName).catch((error: Error) => {
      throw new Error(
        `bench:engine: no PostgreSQL to back-calculate on (${error.message}); start it (see README) or set BENCH_DATABASE=embedded`,
      );
    });
    await made.prisma.$disconnect();
    await made.pool.end();
    process.env.DATABASE_URL = made.url;
  } else delete process.env.DATABASE_URL;
  const { root, closeRoot } = await import("@/lib/root");
  const { applyCatalog } = await import("@/lib/catalog/apply-catalog");
  const { validateCatalog } = await import("@/lib/catalog/validate");
  const { backCalculate } = await import("@/lib/ingest/back-calculate");
  const { createVenues } = await import("@/lib/venues/connect");
  const launch = Math.floor(Date.now() / HOUR) * HOUR;
  const base = launch - DAYS * 24 * HOUR;
  const end = new Date(launch + 30 * 86_400_000).toISOString();
  const served = await startBenchVenues({ base, launch, end });
  const at = new Date(base).toISOString();
  const launchAt = new Date(launch).toISOString();
  const indices = benchIndices({ inceptionAt: at, launchAt });
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
  const clients = createVenues({
    polymarketGammaUrl: served.urls.gammaUrl,
    polymarketClobUrl: served.urls.clobUrl,
    kalshiApiUrl: served.urls.kalshiUrl,
    concurrency: 8,
    timeoutMs: 30_000,
  });
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const pgCpu0 = pg ? postgresCpuSeconds() : 0;
  const r = await backCalculate(prisma, null, clients, {
    log: (line) =>
      benchSettings.debug &&
      console.error(`  [${((performance.now() - t0) / 1000).toFixed(1)} s] ${line}  (${memory()})`),
  });
  const t1 = performance.now();
  const cpu = ((c) => c.user + c.system)(process.cpuUsage(cpu0));
  const pgCpu = pg ? postgresCpuSeconds() - pgCpu0 : null;
  clearInterval(sampler);
  const levels = await prisma.indexLevel.count();
  const venueCpu = await served.stop();
  await closeRoot();
  if (pg) await pg.dropDatabase(dbName);
  fs.rmSync(dir, { recursive: true, force: true });
  const where = pg ? "PostgreSQL (its server's CPU not counted below)" : "embedded PGlite";
  console.log(
    `back-calculation: ${DAYS} days, ${indices.length} indices over ${r.markets} markets, ${where}, local fake venues in a process of their own`,
  );
  console.log(`  total          : ${((t1 - t0) / 1000).toFixed(1)} s   (target: under 60 s)`);
  console.log(
    `  requests       : ${r.requests}; hourly prices stored: ${r.prices}; hours computed: ${r.hours}; levels: ${levels}`,
  );
  console.log(
    `  CPU            : ${(cpu / 1e6).toFixed(1)} s of this process${pg ? `, the PostgreSQL server's ${pgCpu!.toFixed(1)} s` : " (the embedded database included)"}; the venues' process ${venueCpu === null ? "?" : `${venueCpu.toFixed(1)} s`}`,
  );
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `  phases         : read ${s(r.timing.read)}, store ${s(r.timing.store)}, read back ${s(r.timing.load)}, compute ${s(r.timing.compute)}, write values ${s(r.timing.write)}`,
  );
  console.log(
    `  peak RSS       : ${(peak / 2 ** 20).toFixed(0)} MiB   (target: under 1024 MiB; sampled every 50 ms, so /usr/bin/time -v may see a higher peak)`,
  );
  if (r.problems.length) console.log(`  problems: ${r.problems.slice(0, 3).join("; ")}`);
}

const HOUR = 3_600_000;

/** What the bench's venue process serves: the universe and hourly prices from `base` to the hour before `launch`. */
interface VenueSpan {
  base: number;
  launch: number;
  /** the markets' end date */
  end: string;
}

/**
 * The local fake venues in a process of their own (this script with --venues): their CPU and
 * memory are not the service's. Resolves with their addresses; `stop` ends the process and gives
 * its CPU seconds (null where /proc cannot tell).
 */
async function startBenchVenues(
  span: VenueSpan,
): Promise<{ urls: { gammaUrl: string; clobUrl: string; kalshiUrl: string }; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, "--venues", JSON.stringify(span)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const urls = await new Promise<{ gammaUrl: string; clobUrl: string; kalshiUrl: string }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl !== -1) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.once("exit", (code) => reject(new Error(`the bench's venues exited with ${code}`)));
  });
  return {
    urls,
    stop: async () => {
      const cpu = processCpuSeconds(child.pid);
      child.stdin.end();
      await exited;
      return cpu;
    },
  };
}

/** User and system CPU seconds of a live process, from /proc; null when it cannot be read. */
function processCpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** User and system CPU seconds of every live `postgres` process on this machine (the local server's), from /proc. */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres")
        total += processCpuSeconds(Number(pid)) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** --venues: serves the bench's universe and a smooth hourly path per market (computed on request, nothing held), until stdin closes. */
async function serveBenchVenues(span: VenueSpan) {
  const { startFakeVenues } = await import("../tests/support/fake-venues");
  const fake = await startFakeVenues();
  fake.history.generate = (venue, key, start, stop) => {
    const phase = [...key].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 997, 7);
    const out = [];
    for (
      let t = Math.ceil(Math.max(start, span.base / 1000) / 3600) * 3600;
      t <= Math.min(stop, (span.launch - HOUR) / 1000);
      t += 3600
    ) {
      const p = 0.3 + 0.2 * Math.sin(t / 3600 / 24 + phase);
      out.push(
        venue === "poly"
          ? { t, bid: +p.toFixed(4), ask: +p.toFixed(4) }
          : { t, bid: +(p - 0.01).toFixed(4), ask: +(p + 0.01).toFixed(4) },
      );
    }
    return out;
  };
  seedVenues(fake, span.end);
  process.stdout.write(
    `${JSON.stringify({ gammaUrl: fake.gammaUrl, clobUrl: fake.clobUrl, kalshiUrl: fake.kalshiUrl })}\n`,
  );
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await fake.close();
}

/** Where the memory is (for BENCH_DEBUG): resident, the JavaScript heap, and buffers outside it (the embedded database's WebAssembly memory is in neither of the last two). */
function memory(): string {
  // with node --expose-gc, the heap after a full collection: what is held, not garbage not yet collected
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)}`;
  return `RSS ${mib(m.rss)} MiB, heap ${mib(m.heapUsed)}/${mib(m.heapTotal)}, external ${mib(m.external)}`;
}

if (process.argv.includes("--venues")) {
  serveBenchVenues(JSON.parse(process.argv[process.argv.indexOf("--venues") + 1]!) as VenueSpan).then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (process.argv.includes("--back-calculation")) {
  benchBackCalculation().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  main()
    .then(() => {
      // its own process: a new database and memory figures of its own
      const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, "--back-calculation"], {
        stdio: "inherit",
      });
      process.exit(child.status ?? 1);
    })
    .catch((error: Error) => {
      console.error(error);
      process.exit(1);
    });
}

type FakeVenueModule = typeof import("../tests/support/fake-venues");
type FakeVenues = Awaited<ReturnType<FakeVenueModule["startFakeVenues"]>>;
const POLY_TAGS = 30;
const KALSHI_SERIES = 20;
const PER = 40;

/**
 * The benches' universe on the fake venues: 30 Polymarket tags and 20 Kalshi series of 40 markets
 * each (2,000 markets), with books when given.
 */
function seedVenues(
  fake: FakeVenues,
  end: string,
  books?: { poly: ReturnType<FakeVenueModule["polyBook"]>; kalshi: ReturnType<FakeVenueModule["kalshiBookFp"]> },
) {
  for (let t = 0; t < POLY_TAGS; t++)
    for (let i = 0; i < PER; i++) {
      const id = `${t}-${i}`;
      fake.poly.events.push({
        slug: `ev-${id}`,
        title: `Event ${id}`,
        negRisk: false,
        tags: [`tag-${t}`],
        endDate: end,
        markets: [{ conditionId: `0xb${id}`, question: `Market ${id}?`, yesToken: `tok-${id}`, endDate: end }],
      });
      if (books) fake.poly.books.set(`tok-${id}`, books.poly);
    }
  for (let s = 0; s < KALSHI_SERIES; s++)
    for (let i = 0; i < PER; i++) {
      const ticker = `KXS${s}-E${i}-T1`;
      fake.kalshi.events.push({
        event_ticker: `KXS${s}-E${i}`,
        series_ticker: `KXS${s}`,
        title: `Event ${s} ${i}`,
        mutually_exclusive: false,
        markets: [{ ticker, title: `${ticker}?`, status: "active", close_time: end }],
      });
      if (books) fake.kalshi.books.set(ticker, books.kalshi);
    }
}

/** The benches' catalog: one index per tag and per series of the universe. */
function benchIndices(dates: Record<string, string>) {
  return [
    ...Array.from({ length: POLY_TAGS }, (_, t) => ({
      ticker: `PB-T${t}`,
      name: `Tag ${t}`,
      description: "Bench.",
      ...dates,
      maturityType: "PERPETUAL",
      universe: { venue: "polymarket", tagSlugs: [`tag-${t}`] },
    })),
    ...Array.from({ length: KALSHI_SERIES }, (_, s) => ({
      ticker: `KB-S${s}`,
      name: `Series ${s}`,
      description: "Bench.",
      ...dates,
      maturityType: "PERPETUAL",
      universe: { venue: "kalshi", seriesTickers: [`KXS${s}`] },
    })),
  ];
}
