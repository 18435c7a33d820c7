import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VOL_ROUNDING, verifyBundles } from "@/lib/snapshots/verify-bundles";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";
import { startServer, type RunningServer } from "../support/server";
import { startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";
import { waitFor } from "@/tests/support/wait-for";
import { cryptoEvent, cryptoIndex, fedVolatility } from "../support/venue-fixtures";
import { PrismaPg } from "@prisma/adapter-pg";
import { NameAsTextPool } from "@/lib/db/pg-pool";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { buildFinalBundles } from "@/lib/ingest/final-bundles";
import { GAP_LOOKBACK_HOURS } from "@/lib/ingest/fill-gaps";

// Rules of the launch path, through the built server `npm start` runs, started with a catalog file
// (CATALOG_FILE) on a new database, against venues answering over HTTP:
// - a volatility series launched at start-up gets its back history (the back-calculation reads its
//   event's legs itself: the collector has not run yet);
// - a service started after the launch hour computes the hours since the launch from their own
//   history prices (filled, marked `history-filled`), never from the last back-calculated prices
//   carried on, and a closed month's bundle is built only from final values.
// The launch lies two hours before the current month began, so the month before closes with two
// live hours in it, whatever the hour the test runs at.

const HOUR = 3_600_000;
const now = new Date();
const nowHour = new Date(Math.floor(now.getTime() / HOUR) * HOUR);
const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
const launch = new Date(monthStart.getTime() - 2 * HOUR);
const base = new Date(launch.getTime() - 72 * HOUR);
const closedMonth = base.toISOString().slice(0, 7);
const iso6 = (d: Date) => `${d.toISOString().slice(0, 19)}.000000Z`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-launch-"));
const name = uniqueName("pmb_launch");
let url = "";
let fake: FakeVenues;
let client: pg.Client;
let server: RunningServer | undefined;

/** Each market's price at an hour (hours from the base date): it moves every hour, so a carried price differs from the hour's own. */
const prices: Record<string, (h: number) => number> = {
  "tok-a": (h) => 0.4 + 0.001 * h,
  "tok-b": (h) => 0.6 - 0.0005 * h,
  "tok-cut": (h) => 0.2 + 0.0004 * h,
  "tok-hold": (h) => 0.6 - 0.0006 * h,
  "tok-hike": (h) => 0.2 + 0.0002 * h,
};
const hourOf = (d: Date) => (d.getTime() - base.getTime()) / HOUR;
const price = (token: string, d: Date) => prices[token]!(hourOf(d)).toFixed(4);
/** A decimal as text in one form, whatever the number of trailing zeros a file writes. */
const num = (text: string) => new Decimal(text).toString();
/** The venue's hourly history from the base date through the hour before the server starts. */
const history = (token: string): HistoryPrice[] =>
  Array.from({ length: hourOf(nowHour) }, (_, h) => {
    const p = Number(prices[token]!(h).toFixed(4));
    return { t: (base.getTime() + h * HOUR) / 1000, bid: p, ask: p };
  });

const when = { inceptionAt: base, launchAt: launch };
const catalog = { version: 1, indices: [cryptoIndex(when)], volatility: [fedVolatility(when)] };

beforeAll(async () => {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("needs `npm run build` first");
  url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  fake = await startFakeVenues();
  const end = new Date(nowHour.getTime() + 60 * 24 * HOUR).toISOString();
  fake.poly.events.push(...["a", "b"].map((x) => cryptoEvent(`btc-${x}`, end, `tok-${x}`)), {
    slug: "fed-decision-december",
    title: "Fed decision in December",
    negRisk: true,
    tags: ["economy"],
    endDate: end,
    markets: ["Cut", "Hold", "Hike"].map((g) => ({
      conditionId: `0x${g.toLowerCase()}`,
      question: `Fed: ${g}?`,
      groupItemTitle: g,
      yesToken: `tok-${g.toLowerCase()}`,
      endDate: end,
    })),
  });
  for (const token of Object.keys(prices)) fake.history.poly.set(token, history(token));
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  // no scheduler: everything below is what the start-up itself does
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
  // the start-up's work runs in the background: it ends with the closed month's bundle
  await waitFor(
    "the closed month's bundle, every file of its manifest stored",
    async () =>
      (
        await client.query<{ ok: boolean }>(
          `SELECT (SELECT count(*) FROM snapshot_files f WHERE f.month = b.month) = jsonb_array_length(b.manifest->'files') AS ok FROM snapshot_bundles b WHERE b.month = $1`,
          [closedMonth],
        )
      ).rows[0]?.ok,
    { timeoutMs: 240_000, intervalMs: 500 },
  );
}, 360_000);

afterAll(async () => {
  await server?.stop();
  await client?.end();
  await fake?.close();
  await dropDatabase(name);
});

async function file(month: string, fileName: string): Promise<Array<Record<string, string>>> {
  const r = await client.query<{ content: string }>(
    `SELECT content FROM snapshot_files WHERE month = $1 AND name = $2`,
    [month, fileName],
  );
  const [header, ...lines] = r.rows[0]!.content.split("\r\n").filter(Boolean);
  const cols = header!.split(",");
  // the columns read here hold no commas
  return lines.map((l) =>
    Object.fromEntries(
      l
        .split(",")
        .slice(0, cols.length)
        .map((v, i) => [cols[i]!, v]),
    ),
  );
}

describe("launching with a catalog file at start-up", () => {
  it("a volatility series launched at start-up gets its back history: a value every hour from the base date, back-calculated", async () => {
    const ticks = await client.query<{ t: Date; basis: string }>(
      `SELECT v."computedAt" AS t, v.basis FROM volatility_ticks v JOIN volatility_series s ON s.id = v."seriesId" WHERE s.ticker = 'PMV-FEDDEC' ORDER BY v."computedAt"`,
    );
    const back = ticks.rows.filter((x) => x.t < launch);
    expect(back.map((x) => x.t.toISOString())).toEqual(
      Array.from({ length: 72 }, (_, h) => new Date(base.getTime() + h * HOUR).toISOString()),
    );
    expect(back.every((x) => x.basis === "back-calculated")).toBe(true);
    const series = await client.query<{ legs: string[]; backCalculatedAt: Date | null }>(
      `SELECT "legConditionIds" AS legs, "backCalculatedAt" FROM volatility_series WHERE ticker = 'PMV-FEDDEC'`,
    );
    expect(series.rows[0]!.legs.sort()).toEqual(["0xcut", "0xhike", "0xhold"]);
    expect(series.rows[0]!.backCalculatedAt).not.toBeNull();
  });

  it("the hours after a launch already past are computed from their own history prices (history-filled), not from the last ones carried on", async () => {
    const after = [launch, new Date(launch.getTime() + HOUR)];
    const constituents = await file(closedMonth, "constituent_prices.csv");
    for (const t of after) {
      const used = constituents
        .filter((c) => c.t === iso6(t))
        .map((c) => [c.condition_id, num(c.price!), c.observed_at]);
      expect(used.sort()).toEqual([
        ["0xbtc-a", num(price("tok-a", t)), iso6(t)],
        ["0xbtc-b", num(price("tok-b", t)), iso6(t)],
      ]);
    }
    const levels = await file(closedMonth, "index_levels.csv");
    expect(levels.filter((l) => new Date(l.t!) >= launch).map((l) => [l.t, l.basis, l.revision, l.stale])).toEqual(
      after.map((t) => [iso6(t), "history-filled", "0", "false"]),
    );
    expect(levels.filter((l) => new Date(l.t!) < launch).every((l) => l.basis === "back-calculated")).toBe(true);
    const legs = await file(closedMonth, "volatility_legs.csv");
    for (const t of after) {
      const used = legs.filter((g) => g.t === iso6(t)).map((g) => [g.condition_id, num(g.mid!), g.observed_at]);
      expect(used.sort()).toEqual([
        ["0xcut", num(price("tok-cut", t)), iso6(t)],
        ["0xhike", num(price("tok-hike", t)), iso6(t)],
        ["0xhold", num(price("tok-hold", t)), iso6(t)],
      ]);
    }
  });

  it("the closed month's bundle is built from final values only: nothing in it is restated later, and every value recomputes from its files", async () => {
    const restated = await client.query(`SELECT ticker, t FROM restatements`);
    expect(restated.rows).toEqual([]);
    const revised = await client.query(
      `SELECT 1 FROM index_levels WHERE revision > 0 UNION ALL SELECT 1 FROM volatility_ticks WHERE revision > 0`,
    );
    expect(revised.rowCount).toBe(0);
    // every hour of the month the engine has computed is in the bundle, as the database holds it now
    const stored = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM index_levels WHERE t >= $1 AND t < $2`,
      [base, monthStart],
    );
    expect((await file(closedMonth, "index_levels.csv")).length).toBe(Number(stored.rows[0]!.n));
    const bundle = await client.query<{ manifest: object }>(`SELECT manifest FROM snapshot_bundles WHERE month = $1`, [
      closedMonth,
    ]);
    const out = path.join(dir, "bundles", closedMonth);
    fs.mkdirSync(out, { recursive: true });
    const files = await client.query<{ name: string; content: string }>(
      `SELECT name, content FROM snapshot_files WHERE month = $1`,
      [closedMonth],
    );
    for (const f of files.rows) fs.writeFileSync(path.join(out, f.name), f.content);
    fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(bundle.rows[0]!.manifest));
    const report = verifyBundles(path.join(dir, "bundles"));
    expect(report.months).toEqual([closedMonth]);
    expect(report.integrity.failures).toEqual([]);
    expect(report.index.failures).toEqual([]);
    expect(Number(report.index.maxLevelDiff)).toBe(0);
    expect(report.volatility.failures).toEqual([]);
    expect(report.volatility.maxValueDiff).toBeLessThanOrEqual(VOL_ROUNDING);
  });

  it("rule (final values): a closed month whose hour within the gap filler's look-back lacks a price of its own waits; once the look-back has passed it is built", async () => {
    const pool = new NameAsTextPool({ connectionString: url, max: 2 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      // the month's last hour as if the gap filler had not filled it yet for one market
      const last = new Date(monthStart.getTime() - HOUR);
      await client.query(`DELETE FROM snapshot_bundles WHERE month = $1`, [closedMonth]);
      const gone = await client.query(
        `DELETE FROM market_snapshots WHERE "conditionId" = '0xbtc-a' AND "observedAt" = $1 AND source = 'history'`,
        [last],
      );
      expect(gone.rowCount).toBe(1);
      const waits: Array<{ month: string; notFinalFrom: Date }> = [];
      const dayAfter = new Date(monthStart.getTime() + 24 * HOUR);
      expect(await buildFinalBundles(prisma, dayAfter, waits)).toEqual([]);
      expect(waits).toEqual([{ month: closedMonth, notFinalFrom: last }]);
      // the gap filler looks back 48 hours: past them, the hour is final as it stands
      const lookbackPassed = new Date(last.getTime() + (GAP_LOOKBACK_HOURS + 1) * HOUR);
      expect(await buildFinalBundles(prisma, lookbackPassed)).toEqual([closedMonth]);
    } finally {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    }
  });
});
