import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, sql } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";
import { kalshiBookFp, polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";
import { waitFor } from "@/tests/support/wait-for";
import { statusView as statusViewShape } from "@/lib/data/status-shapes";
import { cpiEvent, cpiIndex, cryptoEvent, cryptoIndex, tsxCli, venueEnv } from "../support/venue-fixtures";

// /status from the database: a venue whose reads fail for a whole collector run gets an incident,
// opened by the service and closed when the venue reads again; the operator opens, annotates and
// closes incidents with `npm run incidents`; the page and /status.json say the same.

const HOUR = 3_600_000;
const now = Math.floor(Date.now() / HOUR) * HOUR;
const hours = [2, 1, 0].map((k) => new Date(now - k * HOUR));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-status-"));
let database: { url: string; drop: () => Promise<void> };
let fake: FakeVenues;
let server: RunningServer;
const DEAD = "http://127.0.0.1:9/kalshi"; // nothing listens on the discard port

const catalog = {
  version: 1,
  indices: [cryptoIndex({ inceptionAt: hours[0]! }), cpiIndex({ inceptionAt: hours[0]! })],
  volatility: [
    {
      ticker: "KXV-FED",
      slug: "kalshi-fed",
      name: "Kalshi Fed Decision Volatility",
      description: "Expected movement of the probabilities of the Kalshi Fed decision event.",
      category: "macro",
      venue: "kalshi",
      event: "KXFED-A",
      inceptionAt: hours[0]!.toISOString(),
      tenorsDays: [7],
      headlineTenorDays: 7,
      // A one-minute snapshot age gate: an hour without a Kalshi read makes both legs stale.
      gates: { snapshotMaxAgeSeconds: 60 },
    },
  ],
};

// A day-long tick keeps the engine and the indices "fresh" between these hours: only the venue fails.
const cli = (script: string, args: string[], kalshiUrl = fake.kalshiUrl) =>
  tsxCli(() =>
    venueEnv(fake, {
      DATABASE_URL: database.url,
      ENGINE_TICK_SECONDS: "86400",
      KALSHI_API_URL: kalshiUrl,
      COLLECT_TIMEOUT_MS: "2000",
    }),
  )(script, args);

interface StatusJson {
  venues: Array<{
    venue: string;
    failing: boolean;
    lastOkAt: string | null;
    lastError: string | null;
    staleMarkets: number;
  }>;
  staleLegs: Array<{
    seriesTicker: string;
    venue: string;
    label: string;
    lastSnapshotAt: string | null;
    limitSeconds: number;
  }>;
  incidents: Array<{
    ref: string | null;
    source: string;
    subject: string;
    title: string;
    resolvedAt: string | null;
    notes: Array<{ body: string }>;
  }>;
  resolved: Array<{ ref: string; subject: string; resolvedAt: string; notes: Array<{ body: string }> }>;
}
// The read model caches for 5 s: each look polls until it shows what the CLI just wrote.
const status = (what: string, shows: (s: StatusJson) => boolean) =>
  waitFor(
    `/status.json to show ${what}`,
    async () => {
      const res = await fetch(`${server.baseUrl}/status.json`);
      expect(res.status).toBe(200);
      const s = (await res.json()) as StatusJson;
      // /status.json is the read model, field for field: its shape is the one the types come from.
      statusViewShape.parse(s);
      return shows(s) && s;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
const page = async (p: string) => {
  const res = await fetch(`${server.baseUrl}${p}`);
  expect(res.status, p).toBe(200);
  return res.text();
};

beforeAll(async () => {
  database = await ownDatabase("status");
  fake = await startFakeVenues();
  const end = new Date(now + 40 * 86_400_000).toISOString();
  fake.poly.events.push(...["btc-a", "btc-b"].map((slug) => cryptoEvent(slug, end)));
  fake.kalshi.events.push(cpiEvent("A", end));
  fake.kalshi.events.push({
    event_ticker: "KXFED-A",
    series_ticker: "KXFED",
    title: "Fed decision A",
    mutually_exclusive: true,
    markets: [
      { ticker: "KXFED-A-HOLD", title: "Hold?", status: "active", close_time: end },
      { ticker: "KXFED-A-CUT", title: "Cut?", status: "active", close_time: end },
    ],
  });
  fake.kalshi.books.set("KXFED-A-HOLD", kalshiBookFp(0.6, 0.62));
  fake.kalshi.books.set("KXFED-A-CUT", kalshiBookFp(0.38, 0.4));
  fake.poly.books.set("tok-btc-a", polyBook(0.3, 0.33));
  fake.poly.books.set("tok-btc-b", polyBook(0.5, 0.53));
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(0.4, 0.43));
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  server = await startServer({
    DATABASE_URL: database.url,
    REDIS_URL: "",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    ENGINE_TICK_SECONDS: "86400",
    CATALOG_FILE: file,
    POLYMARKET_GAMMA_URL: fake.gammaUrl,
    POLYMARKET_CLOB_URL: fake.clobUrl,
    KALSHI_API_URL: fake.kalshiUrl,
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("incidents recorded by the service", () => {
  it("a venue whose reads fail for a whole run gets an incident, closed when it reads again; the venue table shows the last read and error", async () => {
    const ok = await cli("scripts/collect.ts", ["--once", "--at", hours[0]!.toISOString()]);
    expect(ok.status, `${ok.stdout}\n${ok.stderr}`).toBe(0);
    let s = await status("both venues read", (s) => s.venues.length === 2);
    expect(s.venues.map((v) => v.venue).sort()).toEqual(["kalshi", "polymarket"]);
    expect(s.venues.every((v) => !v.failing && v.lastOkAt !== null)).toBe(true);
    expect(s.incidents).toEqual([]);
    expect(s.staleLegs).toEqual([]);
    const kalshiOk = s.venues.find((v) => v.venue === "kalshi")!.lastOkAt;

    const down = await cli("scripts/collect.ts", ["--once", "--at", hours[1]!.toISOString()], DEAD);
    expect(down.status, `${down.stdout}\n${down.stderr}`).toBe(0);
    expect(down.stdout).toContain("incidents: opened venue:kalshi");
    s = await status("Kalshi's incident", (s) => s.incidents.length > 0);
    const kalshi = s.venues.find((v) => v.venue === "kalshi")!;
    expect(kalshi).toMatchObject({ failing: true, lastOkAt: kalshiOk });
    expect(kalshi.lastError).toBeTruthy();
    expect(s.venues.find((v) => v.venue === "polymarket")!.failing).toBe(false);
    expect(s.incidents).toHaveLength(1);
    expect(s.incidents[0]).toMatchObject({
      source: "auto",
      subject: "kalshi",
      title: "Venue reads failing",
      resolvedAt: null,
    });
    expect(s.incidents[0]!.ref).toMatch(/^INC-[0-9A-F]{8}$/);
    // The series' legs had no read this hour: past their one-minute gate, listed and counted.
    expect(s.staleLegs.map((l) => [l.seriesTicker, l.venue, l.limitSeconds, l.lastSnapshotAt])).toEqual([
      ["KXV-FED", "kalshi", 60, expect.stringMatching(/^\d{4}-/)],
      ["KXV-FED", "kalshi", 60, expect.stringMatching(/^\d{4}-/)],
    ]);
    expect(kalshi.staleMarkets).toBeGreaterThanOrEqual(2);
    const html = await page("/status");
    expect(html.match(/data-testid="stale-leg" data-series="KXV-FED"/g)).toHaveLength(2);
    expect(html).toMatch(/data-testid="status-venue" data-venue="kalshi"[^>]*data-failing="1"/);
    expect(html).toContain(`data-ref="${s.incidents[0]!.ref}"`);

    // A second failing run does not open a second incident.
    const still = await cli("scripts/collect.ts", ["--once", "--at", hours[1]!.toISOString()], DEAD);
    expect(still.stdout).not.toContain("incidents:");

    // Kalshi is back, and its Fed event now lists a third outcome: it joins the series' legs
    // from this hour (the leg updates of lib/ingest/collector.ts, on a Kalshi event).
    fake.kalshi.events
      .find((e) => e.event_ticker === "KXFED-A")!
      .markets.push({
        ticker: "KXFED-A-HIKE",
        title: "Hike?",
        status: "active",
        close_time: new Date(now + 40 * 86_400_000).toISOString(),
      });
    fake.kalshi.books.set("KXFED-A-HIKE", kalshiBookFp(0.01, 0.03));
    const back = await cli("scripts/collect.ts", ["--once", "--at", hours[2]!.toISOString()]);
    expect(back.stdout).toContain("closed 1");
    expect(back.stdout).toContain("legs of KXV-FED: kalshi:KXFED-A-HIKE joined");
    s = await status("Kalshi's incident resolved", (s) => s.incidents.length === 0 && s.resolved.length > 0);
    expect(s.incidents).toEqual([]);
    expect(s.staleLegs).toEqual([]);
    expect(s.venues.find((v) => v.venue === "kalshi")!.failing).toBe(false);
    expect(s.resolved[0]).toMatchObject({ subject: "kalshi" });
    expect(s.resolved[0]!.notes.map((n) => n.body).join(" ")).toContain("Recovered");

    const rows = await sql<{ key: string; source: string; resolved: boolean }>(
      database.url,
      `SELECT key, source, "resolvedAt" IS NOT NULL AS resolved FROM incidents`,
    );
    expect(rows).toEqual([{ key: "venue:kalshi", source: "auto", resolved: true }]);
    expect(await page("/status/history")).toContain(`data-ref="${s.resolved[0]!.ref}"`);
  }, 180_000);
});

describe("incidents posted by the operator (npm run incidents)", () => {
  it("open, note, list, close; shown on /status and in /status.json while open, then under resolved", async () => {
    const opened = await cli("scripts/incidents.ts", [
      "open",
      "--title",
      "Delayed fixing",
      "--subject",
      "PMX-BTC",
      "--severity",
      "minor",
      "--note",
      "Investigating.",
    ]);
    expect(opened.status, opened.stderr).toBe(0);
    const ref = /INC-[0-9A-F]{8}/.exec(opened.stdout)?.[0] ?? "";
    expect(ref).not.toBe("");
    expect((await cli("scripts/incidents.ts", ["note", ref, "--text", "Cause found."])).status).toBe(0);
    const list = await cli("scripts/incidents.ts", ["list"]);
    expect(list.stdout).toMatch(new RegExp(`^${ref}\\topen\\tminor\\toperator\\t`, "m"));

    let s = await status(`${ref} with its second note`, (s) =>
      s.incidents.some((i) => i.ref === ref && i.notes.length === 2),
    );
    const shown = s.incidents.find((i) => i.ref === ref)!;
    expect(shown).toMatchObject({ source: "operator", subject: "PMX-BTC", title: "Delayed fixing" });
    expect(shown.notes.map((n) => n.body)).toEqual(["Investigating.", "Cause found."]);
    expect(await page("/status")).toContain("Cause found.");

    expect((await cli("scripts/incidents.ts", ["close", ref, "--note", "Fixed."])).status).toBe(0);
    const again = await cli("scripts/incidents.ts", ["close", ref]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("already closed");
    s = await status(`${ref} resolved`, (s) => s.resolved.some((i) => i.ref === ref));
    expect(s.incidents.find((i) => i.ref === ref)).toBeUndefined();
    expect(s.resolved.find((i) => i.ref === ref)?.notes.at(-1)?.body).toBe("Fixed.");
    expect((await cli("scripts/incidents.ts", ["list", "--all"])).stdout).toMatch(
      new RegExp(`^${ref}\\tresolved\\t`, "m"),
    );
  }, 120_000);

  it("refuses an unknown incident and a bad command without touching anything", async () => {
    const unknown = await cli("scripts/incidents.ts", ["note", "INC-00000000", "--text", "x"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("no incident INC-00000000");
    expect((await cli("scripts/incidents.ts", ["open"])).status).toBe(2);
    expect((await cli("scripts/incidents.ts", ["reopen", "x"])).status).toBe(2);
  }, 60_000);
});
