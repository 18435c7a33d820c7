import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDataDir } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";
import { kalshiBookFp, polyBook, startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";

// Rule (lib/venues/price-history.ts, lib/plumbing/error-kind.ts): a history batch the venue refuses
// with a 4xx is read again market by market, inside the built server too. There a class exists in
// one copy per chunk, so the refusal is recognised by the error's `kind`, never by `instanceof`
// (which was false there: every market was left unpriced). `npm run backfill` runs in the embedded
// server `npm start` runs (the operator call), against local venues refusing both batch forms.

const HOUR = 3_600_000;
const launch = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR);
const base = new Date(launch.getTime() - 48 * HOUR);
const sec = (d: Date) => d.getTime() / 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-refused-"));
const dataDir = tempDataDir("refused");
let fake: FakeVenues;
let server: RunningServer | undefined;

const catalog = {
  version: 1,
  indices: [
    {
      ticker: "PMX-R",
      name: "Refused Poly Index",
      description: "Open Polymarket markets tagged crypto.",
      inceptionAt: base.toISOString(),
      launchAt: launch.toISOString(),
      maturityType: "PERPETUAL",
      universe: { venue: "polymarket", tagSlugs: ["crypto"] },
    },
    {
      ticker: "KX-R",
      name: "Refused Kalshi Index",
      description: "Open Kalshi CPI markets.",
      inceptionAt: base.toISOString(),
      launchAt: launch.toISOString(),
      maturityType: "PERPETUAL",
      universe: { venue: "kalshi", seriesTickers: ["KXCPI"] },
    },
  ],
};

const env = () => ({
  ...process.env,
  DATABASE_URL: "",
  DATA_DIR: dataDir,
  REDIS_URL: "",
  DEMO_MARKET: "0",
  POLYMARKET_GAMMA_URL: fake.gammaUrl,
  POLYMARKET_CLOB_URL: fake.clobUrl,
  KALSHI_API_URL: fake.kalshiUrl,
});
const cli = (script: string, args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args],
      { env: env(), encoding: "utf8" },
      (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
const hourly = (price: number, spread = 0): HistoryPrice[] =>
  Array.from({ length: 48 }, (_, i) => ({ t: sec(base) + i * 3600, bid: price - spread / 2, ask: price + spread / 2 }));

beforeAll(async () => {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("needs `npm run build` first");
  fake = await startFakeVenues();
  const end = new Date(launch.getTime() + 40 * 86_400_000).toISOString();
  for (const id of ["a", "b"]) {
    fake.poly.events.push({
      slug: `btc-${id}`,
      title: `BTC ${id}`,
      negRisk: false,
      tags: ["crypto"],
      endDate: end,
      markets: [{ conditionId: `0xbtc-${id}`, question: `Will BTC reach ${id}?`, yesToken: `tok-${id}`, endDate: end }],
    });
    fake.poly.books.set(`tok-${id}`, polyBook(0.4, 0.42));
    fake.history.poly.set(`tok-${id}`, hourly(0.41));
  }
  fake.kalshi.events.push({
    event_ticker: "KXCPI-A",
    series_ticker: "KXCPI",
    title: "CPI A",
    mutually_exclusive: false,
    markets: [{ ticker: "KXCPI-A-T3", title: "CPI A above 3%?", status: "active", close_time: end }],
  });
  fake.kalshi.books.set("KXCPI-A-T3", kalshiBookFp(0.5, 0.53));
  fake.history.kalshi.set("KXCPI-A-T3", hourly(0.5, 0.02));
  // the venue (or a proxy before it) refuses POST /batch-prices-history and GET /markets/candlesticks with a 400
  fake.history.refuseBatch = true;
  server = await startServer(
    {
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      REDIS_URL: "",
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      POLYMARKET_GAMMA_URL: fake.gammaUrl,
      POLYMARKET_CLOB_URL: fake.clobUrl,
      KALSHI_API_URL: fake.kalshiUrl,
    },
    240_000,
  );
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  const applied = await cli("scripts/catalog.ts", ["apply", file]);
  expect(applied.status, applied.stdout + applied.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("a refused history batch inside the built server", () => {
  it("is answered by single reads: every market is priced, through `npm run backfill` run by the server", async () => {
    fake.hits.length = 0;
    const r = await cli("scripts/backfill.ts", []);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // the server ran it (the operator call), and it priced all three markets from the single forms
    expect(server!.output()).not.toContain("not in the venue's batch answer");
    expect(r.stdout).toMatch(
      /back-calculated (KX-R, PMX-R|PMX-R, KX-R): 3 market\(s\) priced from the venues' history/,
    );
    expect(fake.hits.some((h) => h.startsWith("POST /clob/batch-prices-history"))).toBe(true);
    expect(fake.hits.some((h) => h.startsWith("/kalshi/markets/candlesticks?"))).toBe(true);
    expect(fake.hits.filter((h) => h.startsWith("/clob/prices-history?market=tok-")).length).toBeGreaterThanOrEqual(2);
    expect(fake.hits.some((h) => h.startsWith("/kalshi/series/KXCPI/markets/KXCPI-A-T3/candlesticks?"))).toBe(true);
    // never a call to a sunset Gamma list
    expect(fake.hits.filter((h) => /^\/gamma\/(events|markets)\?/.test(h))).toEqual([]);
  }, 240_000);
});
