import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, sql } from "../faults/support";
import { cpiEvent, cpiIndex, cryptoEvent, cryptoIndex, tsxCli, venueEnv } from "../support/venue-fixtures";
import { kalshiBookFp, polyBook, startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";

// Rule (lib/ingest/back-calculate.ts): a venue down during a back-calculation is not a market
// without history. An entry one of whose reads failed (connection refused, a 503 past the
// retries) is neither computed nor marked back-calculated: no value is made up for it, the run's
// summary says it waits and why, and the next run back-calculates it whole, to the same hours a
// run with the venue up from the start gives. Two databases, the operator's collector run, the
// local venues over HTTP; the hours are fixed dates (no dependence on the day the test runs).

const HOUR = 3_600_000;
const launch = new Date(Date.UTC(2026, 9, 7, 12));
const base = new Date(launch.getTime() - 72 * HOUR);
const after = (k: number) => new Date(launch.getTime() + k * HOUR);
const DEAD = "http://127.0.0.1:9/kalshi"; // nothing listens on the discard port
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-outage-"));
let fake: FakeVenues;
let outage: { url: string; drop: () => Promise<void> };
let reference: { url: string; drop: () => Promise<void> };

/** Hourly history from the base date through two hours after the launch. */
const hourly = (price: (h: number) => number, spread = 0): HistoryPrice[] =>
  Array.from({ length: 75 }, (_, h) => ({
    t: (base.getTime() + h * HOUR) / 1000,
    bid: +(price(h) - spread / 2).toFixed(4),
    ask: +(price(h) + spread / 2).toFixed(4),
  }));

const cliOn = (url: string) => tsxCli(() => venueEnv(fake, { DATABASE_URL: url, COLLECT_TIMEOUT_MS: "2000" }));
const collect = (url: string, at: Date, extra: Record<string, string> = {}) =>
  cliOn(url)("scripts/collect.ts", ["--once", "--at", at.toISOString()], extra);

async function levels(url: string, ticker: string) {
  return sql<{ t: Date; level: string; basis: string; stale: boolean }>(
    url,
    `SELECT l.t, l.level::text AS level, l.basis, l.stale FROM index_levels l JOIN indices i ON i.id = l."indexId" WHERE i.ticker = $1 ORDER BY l.t`,
    [ticker],
  );
}
const backCalculatedAt = async (url: string, ticker: string) =>
  (await sql<{ at: Date | null }>(url, `SELECT "backCalculatedAt" AS at FROM indices WHERE ticker = $1`, [ticker]))[0]!
    .at;

beforeAll(async () => {
  fake = await startFakeVenues();
  const end = new Date(launch.getTime() + 40 * 24 * HOUR).toISOString();
  fake.poly.events.push(cryptoEvent("btc-a", end));
  fake.kalshi.events.push(cpiEvent("A", end));
  fake.poly.books.set("tok-btc-a", polyBook(0.44, 0.46));
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(0.5, 0.53));
  fake.history.poly.set(
    "tok-btc-a",
    hourly((h) => 0.4 + 0.001 * h),
  );
  fake.history.kalshi.set(
    "KXCPI-A-T3",
    hourly((h) => 0.45 + 0.0005 * h, 0.02),
  );
  const file = path.join(dir, "catalog.json");
  const when = { inceptionAt: base, launchAt: launch };
  fs.writeFileSync(file, JSON.stringify({ version: 1, indices: [cryptoIndex(when), cpiIndex(when)] }));
  [outage, reference] = await Promise.all([ownDatabase("outage"), ownDatabase("outageref")]);
  for (const db of [outage, reference]) {
    const applied = await cliOn(db.url)("scripts/catalog.ts", ["apply", file]);
    expect(applied.status, applied.stderr).toBe(0);
  }
}, 240_000);

afterAll(async () => {
  await fake?.close();
  await outage?.drop();
  await reference?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a venue down during the back-calculation", () => {
  it("connection refused: the entry waits, not marked done, with no value; the other venue's entry is back-calculated", async () => {
    const r = await collect(outage.url, launch, { KALSHI_API_URL: DEAD });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("back-calculated PMX-BTC:");
    expect(r.stdout).toMatch(
      /KX-CPI waits for a later run \(not computed, not marked back-calculated\): kalshi's market lists could not be read \(.*unreachable/,
    );
    expect(await backCalculatedAt(outage.url, "KX-CPI")).toBeNull();
    expect(await levels(outage.url, "KX-CPI")).toEqual([]);
    expect(await backCalculatedAt(outage.url, "PMX-BTC")).not.toBeNull();
    expect((await levels(outage.url, "PMX-BTC")).length).toBe(73);
  });

  it("a 503 on the history itself (the lists answer): still waiting, the summary names the market and the status", async () => {
    fake.faults.set("/kalshi/markets/candlesticks", [{ status: 503, times: 1_000 }]);
    const r = await collect(outage.url, after(1));
    fake.faults.clear();
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(
      /KX-CPI waits for a later run \(not computed, not marked back-calculated\): the history of kalshi:KXCPI-A-T3 could not be read \(.*HTTP 503\)/,
    );
    expect(await backCalculatedAt(outage.url, "KX-CPI")).toBeNull();
    expect(await levels(outage.url, "KX-CPI")).toEqual([]);
  });

  it("the venue back, the next run back-calculates it whole: the same hours as a run with the venue up from the start", async () => {
    const r = await collect(outage.url, after(2));
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("back-calculated KX-CPI:");
    expect(r.stdout).not.toContain("waits for a later run");
    expect(await backCalculatedAt(outage.url, "KX-CPI")).not.toBeNull();

    for (const at of [launch, after(1), after(2)]) {
      const up = await collect(reference.url, at);
      expect(up.status, `${up.stdout}\n${up.stderr}`).toBe(0);
      expect(up.stdout).not.toContain("waits for a later run");
    }
    for (const ticker of ["KX-CPI", "PMX-BTC"]) {
      const [down, ref] = [await levels(outage.url, ticker), await levels(reference.url, ticker)];
      const back = (rows: typeof down) => rows.filter((l) => l.t < launch);
      expect(back(ref)).toHaveLength(72);
      expect(back(ref).every((l) => l.basis === "back-calculated")).toBe(true);
      expect(back(down)).toEqual(back(ref));
      // the hours since the launch are computed too (those the venue's books missed, from its history)
      expect(down.filter((l) => l.t >= launch).map((l) => l.t)).toEqual([launch, after(1), after(2)]);
    }
  });
});
