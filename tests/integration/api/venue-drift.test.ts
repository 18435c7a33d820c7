import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, sql } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";
import {
  kalshiBookFp,
  LEGACY_GAMMA_HEADERS,
  polyBook,
  startFakeVenues,
  type FakeVenues,
} from "../../support/fake-venues";
import { waitFor } from "@/tests/support/wait-for";
import { cpiEvent, cpiIndex, cryptoEvent, cryptoIndex, tsxCli, venueEnv } from "../support/venue-fixtures";

// Drift: a venue answering in another shape, announcing an endpoint's end (deprecation / sunset /
// warning headers), or answering 404/410 from an endpoint the connectors use is seen, not found
// out from a stale index: the collector opens an incident naming the venue, the endpoint and the
// field (on /status, /status.json and the incidents' Atom feed, and in the log), closed once the
// endpoint answers as relied on again; `npm run venues -- doctor` reads every endpoint the applied
// catalog uses once and exits 1 on drift. Real PostgreSQL, the operator CLIs, the local venues
// over HTTP, and the built server for the pages.

const HOUR = 3_600_000;
const now = Math.floor(Date.now() / HOUR) * HOUR;
const at = (k: number) => new Date(now - (6 - k) * HOUR);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-drift-"));
let database: { url: string; drop: () => Promise<void> };
let fake: FakeVenues;
let server: RunningServer | undefined;

const catalog = { version: 1, indices: [cryptoIndex({ inceptionAt: at(0) }), cpiIndex({ inceptionAt: at(0) })] };

// A day-long tick keeps the engine and the indices "fresh" between these hours: only the venue drifts.
const cli = tsxCli(() =>
  venueEnv(fake, { DATABASE_URL: database.url, ENGINE_TICK_SECONDS: "86400", COLLECT_TIMEOUT_MS: "2000" }),
);
const doctor = () => cli("scripts/venues.ts", ["doctor"]);
const rowOf = (table: string, endpoint: string) =>
  table.split("\n").find((line) => line.startsWith(`${endpoint}  `)) ?? "";
const openDrift = async () =>
  (
    await sql<{ key: string; title: string }>(
      database.url,
      `SELECT key, title FROM incidents WHERE "resolvedAt" IS NULL AND key LIKE 'drift:%' ORDER BY key`,
    )
  ).map((r) => r.key);

/** The drift the tests inject, removed between tests. */
const cure = () => {
  fake.drift.headers.clear();
  fake.drift.reshape.clear();
  fake.faults.clear();
};

beforeAll(async () => {
  database = await ownDatabase("drift");
  fake = await startFakeVenues();
  const end = new Date(now + 40 * 86_400_000).toISOString();
  fake.poly.events.push(cryptoEvent("btc-a", end, "tok-a"));
  fake.poly.books.set("tok-a", polyBook(0.3, 0.33));
  fake.history.poly.set("tok-a", [{ t: Math.floor(now / 1000) - 3600, bid: 0.3, ask: 0.33 }]);
  fake.kalshi.events.push(cpiEvent("A", end));
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(0.4, 0.43));
  fake.history.kalshi.set("KXCPI-A-T3", [{ t: Math.floor(now / 1000) - 3600, bid: 0.4, ask: 0.43 }]);
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  const applied = await cli("scripts/catalog.ts", ["apply", file]);
  expect(applied.status, applied.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("npm run venues -- doctor", () => {
  it("reads every endpoint the applied catalog uses once, as a table; exit 0 when each answers as relied on", async () => {
    cure();
    fake.hits.length = 0;
    const r = await doctor();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const endpoint of [
      "gamma GET /events/keyset",
      "gamma GET /markets/keyset",
      "clob POST /books",
      "clob GET /prices-history",
      "clob POST /batch-prices-history",
      "kalshi GET /events",
      "kalshi GET /historical/cutoff",
      "kalshi GET /historical/markets",
      "kalshi GET /markets/{ticker}",
      "kalshi GET /markets/{ticker}/orderbook",
      "kalshi GET /series/{series}/markets/{ticker}/candlesticks",
      "kalshi GET /markets/candlesticks",
    ])
      expect(rowOf(r.stdout, endpoint), endpoint).toMatch(/ 200 +OK +-$/);
    expect(r.stdout).toMatch(/^ENDPOINT +STATUS +SHAPE +DEPRECATION HEADERS$/m);
    expect(r.stdout).toContain("OK: 12 endpoint(s) answer as the connectors rely on");
    // one read each, and never a sunset list
    expect(fake.hits.filter((h) => h.startsWith("/gamma/events/keyset"))).toHaveLength(1);
    expect(fake.hits.filter((h) => /^\/gamma\/(events|markets)\?/.test(h))).toEqual([]);
  }, 60_000);

  it("a shape change: exit 1, the row says which field differs", async () => {
    cure();
    // Kalshi's book in the integer cents shape it removed
    fake.drift.reshape.set("/kalshi/markets/KXCPI-A-T3/orderbook", () => ({
      orderbook: { yes: [[40, 500]], no: [[57, 500]] },
    }));
    const r = await doctor();
    expect(r.status).toBe(1);
    expect(rowOf(r.stdout, "kalshi GET /markets/{ticker}/orderbook")).toMatch(/ 200 +differs at orderbook_fp: /);
    expect(r.stdout).toContain("DRIFT: 1 endpoint(s) changed");
  }, 60_000);

  it("a sunset header: exit 1, the row shows the deprecation headers", async () => {
    cure();
    fake.drift.headers.set("/gamma/events/keyset", { sunset: "Fri, 01 Jan 2027 00:00:00 GMT", deprecation: "true" });
    const r = await doctor();
    expect(r.status).toBe(1);
    expect(rowOf(r.stdout, "gamma GET /events/keyset")).toMatch(
      / 200 +OK +deprecation: true; sunset: Fri, 01 Jan 2027 00:00:00 GMT$/,
    );
  }, 60_000);

  it("a 410: exit 1, the row shows the status", async () => {
    cure();
    fake.faults.set("/kalshi/historical/cutoff", [{ status: 410, times: 5 }]);
    const r = await doctor();
    expect(r.status).toBe(1);
    expect(rowOf(r.stdout, "kalshi GET /historical/cutoff")).toMatch(/ HTTP 410 +- +-$/);
  }, 60_000);
});

describe("drift incidents", () => {
  it("a shape change, a sunset header and a 410 each open an incident naming the venue, the endpoint and the field; shown on /status, /status.json and the Atom feed; closed once the endpoint answers as relied on", async () => {
    cure();
    const ok = await cli("scripts/collect.ts", ["--once", "--at", at(1).toISOString()]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(await openDrift()).toEqual([]);

    // Gamma's markets under a new name, Kalshi announcing the end of its events list, the CLOB's books gone
    fake.drift.reshape.set("/gamma/events/keyset", (body) => ({ data: (body as { events: unknown[] }).events }));
    fake.drift.headers.set("/kalshi/events?", LEGACY_GAMMA_HEADERS);
    fake.faults.set("/clob/books", [{ status: 410, times: 50 }]);
    const drifted = await cli("scripts/collect.ts", ["--once", "--at", at(2).toISOString()]);
    expect(drifted.status, drifted.stdout + drifted.stderr).toBe(0);
    expect(drifted.stdout).toContain("drift: gamma GET /events/keyset events: unexpected shape");
    expect(drifted.stderr).toContain("[venues] drift: polymarket gamma GET /events/keyset events: unexpected shape");
    expect(await openDrift()).toEqual([
      "drift:kalshi|kalshi GET /events|headers",
      "drift:polymarket|clob POST /books|status",
      "drift:polymarket|gamma GET /events/keyset|events",
    ]);
    const titles = await sql<{ subject: string; title: string; body: string }>(
      database.url,
      `SELECT i.subject, i.title, n.body FROM incidents i JOIN incident_notes n ON n."incidentId" = i.id WHERE i.key LIKE 'drift:%' ORDER BY i.key`,
    );
    expect(titles.map((t) => [t.subject, t.title])).toEqual([
      ["kalshi", "Venue API changed: kalshi GET /events"],
      ["polymarket", "Venue API changed: clob POST /books"],
      ["polymarket", "Venue API changed: gamma GET /events/keyset"],
    ]);
    expect(titles[0]!.body).toContain(
      'its headers: deprecation: true; sunset: Fri, 01 May 2026 00:00:00 GMT; warning: 299 - "use /markets/keyset"',
    );
    expect(titles[1]!.body).toContain("its status: HTTP 410 Gone");
    expect(titles[2]!.body).toContain("field events: unexpected shape");

    // the pages say the same (the built server reads the same database)
    if (!fs.existsSync(".next/BUILD_ID")) throw new Error("needs `npm run build` first");
    server = await startServer({
      DATABASE_URL: database.url,
      REDIS_URL: "",
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      ENGINE_TICK_SECONDS: "86400",
      POLYMARKET_GAMMA_URL: fake.gammaUrl,
      POLYMARKET_CLOB_URL: fake.clobUrl,
      KALSHI_API_URL: fake.kalshiUrl,
    });
    const status = (await (await fetch(`${server.baseUrl}/status.json`)).json()) as {
      incidents: Array<{ subject: string; title: string }>;
    };
    expect(
      status.incidents
        .map((i) => i.title)
        .filter((t) => t.startsWith("Venue API changed"))
        .sort(),
    ).toEqual([
      "Venue API changed: clob POST /books",
      "Venue API changed: gamma GET /events/keyset",
      "Venue API changed: kalshi GET /events",
    ]);
    expect(await (await fetch(`${server.baseUrl}/status`)).text()).toContain(
      "Venue API changed: gamma GET /events/keyset",
    );
    const atom = await (await fetch(`${server.baseUrl}/status/incidents.atom`)).text();
    expect(atom).toContain("Venue API changed: clob POST /books");
    expect(atom).toContain("HTTP 410 Gone");

    // the venues answer as relied on again: each incident closes
    cure();
    const back = await cli("scripts/collect.ts", ["--once", "--at", at(3).toISOString()]);
    expect(back.status, back.stdout + back.stderr).toBe(0);
    expect(await openDrift()).toEqual([]);
    await waitFor(
      "the drift incidents resolved on /status.json",
      async () => {
        const s = (await (await fetch(`${server!.baseUrl}/status.json`)).json()) as {
          incidents: Array<{ title: string }>;
        };
        return !s.incidents.some((i) => i.title.startsWith("Venue API changed"));
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
  }, 300_000);
});
