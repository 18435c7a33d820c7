import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";
import { polyBook, startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";

// Rule (back-calculation): an entry is marked back-calculated only when it was. When the venue
// answers none of its history reads (down, or refusing them), the entry stays pending, computes
// nothing, and the next run back-calculates it from its base date.

const HOUR = 3_600_000;
const launch = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR);
const base = new Date(launch.getTime() - 24 * HOUR);
const name = uniqueName("pmb_backcalc_pending");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-backcalc-pending-"));
let url = "";
let fake: FakeVenues;
let client: pg.Client;

const env = () => ({
  ...process.env,
  DATABASE_URL: url,
  REDIS_URL: "",
  DEMO_MARKET: "0",
  POLYMARKET_GAMMA_URL: fake.gammaUrl,
  POLYMARKET_CLOB_URL: fake.clobUrl,
  KALSHI_API_URL: fake.kalshiUrl,
  COLLECT_TIMEOUT_MS: "3000",
});
const cli = (script: string, args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args], { env: env(), encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

async function levels() {
  const r = await client.query<{ t: Date; basis: string }>(`SELECT l.t, l.basis FROM index_levels l JOIN indices i ON i.id = l."indexId" WHERE i.ticker = 'PMX-BTC' ORDER BY l.t`);
  return r.rows;
}

beforeAll(async () => {
  url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  fake = await startFakeVenues();
  const end = new Date(launch.getTime() + 40 * 24 * HOUR).toISOString();
  fake.poly.events.push({ slug: "btc-a", title: "BTC a", negRisk: false, tags: ["crypto"], endDate: end, markets: [{ conditionId: "0xbtc-a", question: "Will BTC reach a?", yesToken: "tok-a", endDate: end }] });
  fake.poly.books.set("tok-a", polyBook(0.5, 0.52));
  fake.history.poly.set("tok-a", Array.from({ length: 24 }, (_, h): HistoryPrice => ({ t: (base.getTime() + h * HOUR) / 1000, bid: 0.4 + 0.001 * h, ask: 0.4 + 0.001 * h })));
  const catalog = {
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
  };
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog));
  const applied = await cli("scripts/catalog.ts", ["apply", file]);
  expect(applied.status, applied.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await fake?.close();
  await dropDatabase(name);
});

describe("an entry is marked back-calculated only when it was", () => {
  it("the venue refusing every history read leaves the entry pending, with nothing computed for it", async () => {
    fake.faults.set("/clob/batch-prices-history", [{ status: 404, times: 1000 }]);
    fake.faults.set("/clob/prices-history", [{ status: 404, times: 1000 }]);
    const r = await cli("scripts/collect.ts", ["--once", "--at", launch.toISOString()]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("PMX-BTC: no history read from polymarket: back-calculated on a later run");
    const row = await client.query<{ backCalculatedAt: Date | null }>(`SELECT "backCalculatedAt" FROM indices WHERE ticker = 'PMX-BTC'`);
    expect(row.rows).toEqual([{ backCalculatedAt: null }]);
    expect(await levels()).toEqual([]);
  });

  it("the next run, the venue answering again, back-calculates it from its base date", async () => {
    fake.faults.clear();
    const next = new Date(launch.getTime() + HOUR);
    const r = await cli("scripts/collect.ts", ["--once", "--at", next.toISOString()]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("back-calculated PMX-BTC");
    const row = await client.query<{ backCalculatedAt: Date | null }>(`SELECT "backCalculatedAt" FROM indices WHERE ticker = 'PMX-BTC'`);
    expect(row.rows[0]!.backCalculatedAt).not.toBeNull();
    const all = await levels();
    expect(all[0]!.t.toISOString()).toBe(base.toISOString());
    expect(all.filter((l) => l.t < launch).map((l) => l.basis)).toEqual(Array.from({ length: 24 }, () => "back-calculated"));
    expect(all.at(-1)!.t.toISOString()).toBe(next.toISOString());
  });
});
