import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, sql, tempDataDir } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";
import { startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";
import { waitFor } from "../../support/wait-for";

// The metrics of the engine's work, scraped from the built server: venue requests by venue,
// documented endpoint and outcome (an error counted when the venue answers one), the start-up
// catch-up's progress, and the engine's hour lag. The server starts with a catalog file whose
// index launched two hours ago, against the local fake venues; its start-up reads the venues
// (the back-calculation and the gap fill) and computes the hours up to now.

const HOUR = 3_600_000;
const nowHour = Math.floor(Date.now() / HOUR) * HOUR;
const base = new Date(nowHour - 24 * HOUR);
const launch = new Date(nowHour - 2 * HOUR);
let database: Awaited<ReturnType<typeof ownDatabase>>;
let fake: FakeVenues;
let server: RunningServer;
let dataDir: string;

const history = (p: number): HistoryPrice[] =>
  Array.from({ length: 25 }, (_, h) => ({ t: (base.getTime() + h * HOUR) / 1000, bid: p, ask: p + 0.002 }));

beforeAll(async () => {
  database = await ownDatabase("venue_metrics");
  dataDir = tempDataDir("venue-metrics");
  fake = await startFakeVenues();
  const end = new Date(nowHour + 60 * 24 * HOUR).toISOString();
  fake.poly.events.push(
    ...["a", "b"].map((x) => ({
      slug: `btc-${x}`,
      title: `BTC ${x}`,
      negRisk: false,
      tags: ["crypto"],
      endDate: end,
      markets: [{ conditionId: `0xbtc-${x}`, question: `Will BTC reach ${x}?`, yesToken: `tok-${x}`, endDate: end }],
    })),
  );
  fake.history.poly.set("tok-a", history(0.4));
  fake.history.poly.set("tok-b", history(0.6));
  // The first Gamma request is answered 503 (retried, then answered).
  fake.faults.set("/gamma/", [{ status: 503 }]);
  const catalogFile = path.join(dataDir, "catalog.json");
  fs.writeFileSync(
    catalogFile,
    JSON.stringify({
      version: 1,
      indices: [
        {
          ticker: "PMX-BTC",
          name: "BTC Price Markets Index",
          description: "Open Polymarket markets tagged crypto.",
          inceptionAt: base.toISOString(),
          launchAt: launch.toISOString(),
          maturityType: "PERPETUAL",
          universe: { venue: "polymarket", tagSlugs: ["crypto"] },
        },
      ],
      volatility: [],
    }),
  );
  server = await startServer({
    DATABASE_URL: database.url,
    REDIS_URL: "",
    DATA_DIR: dataDir,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    CATALOG_FILE: catalogFile,
    POLYMARKET_GAMMA_URL: fake.gammaUrl,
    POLYMARKET_CLOB_URL: fake.clobUrl,
    KALSHI_API_URL: fake.kalshiUrl,
  });
  await waitFor(
    "the start-up work to end",
    async () => {
      const body = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as {
        backfill: { state: string; pending: boolean };
      };
      return body.backfill.state === "done" && !body.backfill.pending;
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  );
}, 360_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The samples of `name` in a Prometheus text scrape: labels and value. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => {
      const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(l)!;
      const labels = Object.fromEntries(
        [...(m[1] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
      );
      return { labels, value: Number(m[2]) };
    });
}

const scrape = async () => (await fetch(`${server.baseUrl}/metrics`)).text();

describe("venue metrics", () => {
  it("pmb_venue_requests_total counts every request the venues received, by venue, documented endpoint and outcome; the 503 as an error", async () => {
    const text = await scrape();
    expect(text).toMatch(/^# TYPE pmb_venue_requests_total counter$/m);
    const venue = samples(text, "pmb_venue_requests_total");
    const poly = venue.filter((s) => s.labels.venue === "polymarket");
    // every request the fake venues received, counted once, and none to Kalshi (not in the catalog)
    const received = fake.received.filter((r) => r.path.startsWith("/gamma/") || r.path.startsWith("/clob/")).length;
    expect(received).toBeGreaterThan(1);
    expect(poly.reduce((n, s) => n + s.value, 0)).toBe(received);
    expect(venue.filter((s) => s.labels.venue === "kalshi").reduce((n, s) => n + s.value, 0)).toBe(0);
    // the documented endpoints' names, never a URL with identifiers or tokens in it
    for (const s of poly) {
      expect(s.labels.endpoint).toMatch(/^(gamma|clob) (GET|POST) \/[a-z/{}_-]+$/);
      expect(["ok", "error"]).toContain(s.labels.outcome);
    }
    expect(text).not.toMatch(/tok-a|0xbtc/);
    // the 503: one error on the Gamma endpoint the start-up asked first, then its retry answered
    const errors = poly.filter((s) => s.labels.outcome === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.value).toBe(1);
    expect(errors[0]!.labels.endpoint).toMatch(/^gamma GET /);
    expect(
      poly.find((s) => s.labels.endpoint === errors[0]!.labels.endpoint && s.labels.outcome === "ok")?.value,
    ).toBeGreaterThan(0);
  });
});

describe("engine metrics", () => {
  it("the catch-up's progress: hours done equal to those planned and to the hours computed since the launch; not running", async () => {
    const text = await scrape();
    const value = (name: string) => samples(text, name)[0]?.value;
    expect(value("pmb_backfill_running")).toBe(0);
    const done = value("pmb_backfill_hours_done");
    expect(done).toBeGreaterThan(0);
    expect(value("pmb_backfill_hours_planned")).toBe(done);
    const health = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { backfill: { hoursDone: number } };
    expect(health.backfill.hoursDone).toBe(done);
    // the last catch-up computed the hours from the launch on (those before it were back-calculated)
    const [since] = await sql<{ n: number }>(
      database.url,
      `SELECT count(*)::int AS n FROM index_levels WHERE t >= $1 AND basis <> 'back-calculated'`,
      [launch],
    );
    expect(done).toBe(since!.n);
  });

  it("pmb_engine_hour_lag_seconds is now minus the newest computed hour, and follows it when the engine is hours behind", async () => {
    const newest = async () =>
      (await sql<{ t: Date }>(database.url, `SELECT max(t) AS t FROM index_levels`))[0]!.t.getTime();
    const lagNow = async () => {
      const before = Date.now();
      const lag = samples(await scrape(), "pmb_engine_hour_lag_seconds")[0]?.value;
      return { lag, before, after: Date.now() };
    };
    const t = await newest();
    const first = await lagNow();
    expect(first.lag).toBeGreaterThanOrEqual((first.before - t) / 1000 - 1);
    expect(first.lag).toBeLessThanOrEqual((first.after - t) / 1000 + 1);
    expect(first.lag).toBeLessThan(2 * 3600); // the start-up computed up to the current hour
    // The engine five hours behind: its newest hours gone. The gauge reads the database at most every 15 s.
    await sql(database.url, `DELETE FROM index_levels WHERE t > $1`, [new Date(nowHour - 5 * HOUR)]);
    const behind = await newest();
    expect(behind).toBe(nowHour - 5 * HOUR);
    const later = await waitFor(
      "the lag to show the engine five hours behind",
      async () => {
        const s = await lagNow();
        return s.lag !== undefined && s.lag >= 5 * 3600 ? s : null;
      },
      { timeoutMs: 40_000, intervalMs: 1_000 },
    );
    expect(later.lag).toBeGreaterThanOrEqual((later.before - behind) / 1000 - 1);
    expect(later.lag).toBeLessThanOrEqual((later.after - behind) / 1000 + 1);
  }, 60_000);
});
