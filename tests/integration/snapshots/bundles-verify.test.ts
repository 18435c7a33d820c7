import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { PrismaPg } from "@prisma/adapter-pg";
import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { NameAsTextPool } from "@/lib/db/pg-pool";
import { applyMigrations } from "@/lib/db/migrate";
import { catchUp } from "@/lib/ingest/engine-runner";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { VOL_ROUNDING, verifyBundles } from "@/lib/snapshots/verify-bundles";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";

// Rule: every published number is recomputable from the monthly bundle files alone. The demo
// engine runs over two month boundaries in a database of its own; its closed months' bundles are
// written to disk as a user downloads them and recomputed by the verifier (`npm run bundles:verify`).

const START = new Date("2026-08-20T00:00:00Z");
const NOW = new Date("2026-10-02T00:30:00Z");
let name = "";
let pool: NameAsTextPool;
let prisma: PrismaClient;
let dir = "";
let report: ReturnType<typeof verifyBundles>;

beforeAll(async () => {
  name = uniqueName("pmb_bundles");
  const url = await createDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await applyMigrations({ exec: (sql) => client.query(sql), query: (sql, params) => client.query(sql, params) as never });
  await client.end();
  pool = new NameAsTextPool({ connectionString: url, max: 4 });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  await catchUp(prisma, { seed: 515151, start: START, now: NOW });
  expect(await buildMissingBundles(prisma, NOW)).toEqual(["2026-08", "2026-09"]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-"));
  for (const f of await prisma.snapshotFile.findMany()) {
    fs.mkdirSync(path.join(dir, f.month), { recursive: true });
    fs.writeFileSync(path.join(dir, f.month, f.name), f.content);
  }
  report = verifyBundles(dir);
}, 600_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end().catch(() => undefined);
  if (name) await dropDatabase(name);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const rows = (month: string, file: string) => parse(fs.readFileSync(path.join(dir, month, file)), { columns: true }) as Array<Record<string, string>>;

describe("bundles:verify recomputes every published value from the bundle files", () => {
  it("the bundles span reconstitutions and resolved constituents", () => {
    const links = [...rows("2026-08", "chain_links.csv"), ...rows("2026-09", "chain_links.csv")];
    expect(links.length).toBeGreaterThan(0);
    expect(links.some((l) => Number(l.removed_market_count) > 0)).toBe(true);
    const prices = [...rows("2026-08", "constituent_prices.csv"), ...rows("2026-09", "constituent_prices.csv")];
    expect(prices.some((p) => p.price_source === "settlement" && (p.price === "0" || p.price === "1"))).toBe(true);
    for (const p of prices.slice(0, 200)) expect(["true", "false"]).toContain(p.stale);
    for (const l of rows("2026-09", "index_levels.csv").slice(0, 200)) expect(["true", "false"]).toContain(l.stale);
  });

  it("link factors are written at full precision, old and new alike", () => {
    const links = [...rows("2026-08", "chain_links.csv"), ...rows("2026-09", "chain_links.csv")];
    const decimals = (s: string) => s.split(".")[1]?.length ?? 0;
    expect(links.some((l) => decimals(l.new_link_factor!) > 18)).toBe(true);
    for (const l of links) expect(l.new_link_factor).toBe(rows(l.completed_at!.slice(0, 7), "compositions.csv").find((c) => c.ticker === l.ticker && c.composition_version === l.to_version)?.link_factor);
  });

  it("every hourly level of every index recomputes to a difference of exactly 0 at eight decimals", () => {
    const r = report;
    const levelRows = rows("2026-08", "index_levels.csv").length + rows("2026-09", "index_levels.csv").length;
    expect(r.months).toEqual(["2026-08", "2026-09"]);
    expect(r.index.problems).toEqual([]);
    expect(r.index.hours).toBe(levelRows);
    expect(r.index.indices).toBeGreaterThan(1);
    expect(r.index.maxLevelDiff).toBe("0.00000000");
    expect(r.index.basesChecked).toBeGreaterThan(r.index.indices);
    expect(r.index.maxBaseDiff).toBe("0");
  });

  it("every volatility value recomputes within its published rounding, and every gate decision is the same", () => {
    const r = report;
    const ticks = rows("2026-08", "volatility_history.csv").length + rows("2026-09", "volatility_history.csv").length;
    expect(r.volatility.problems).toEqual([]);
    expect(r.volatility.computations).toBe(ticks);
    expect(r.volatility.valuesChecked).toBeGreaterThan(ticks * 5);
    expect(r.volatility.maxValueDiff).toBeLessThanOrEqual(VOL_ROUNDING);
    expect(r.volatility.identityUnchecked).toBe(0);
    expect(r.volatility.gateDecisionsChecked).toBe(ticks);
    expect(r.volatility.gateMismatches).toBe(0);
  });

  it("a tampered price is caught: the verifier reports a non-zero difference", () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-tampered-"));
    try {
      fs.cpSync(path.join(dir, "2026-09"), copy, { recursive: true });
      const file = path.join(copy, "constituent_prices.csv");
      const lines = fs.readFileSync(file, "utf8").split("\r\n");
      const i = lines.findIndex((l, n) => n > 0 && l.includes(",mid,"));
      const cells = lines[i]!.split(",");
      cells[3] = String(Number(cells[3]) + 0.01);
      lines[i] = cells.join(",");
      fs.writeFileSync(file, lines.join("\r\n"));
      expect(verifyBundles(copy).index.maxLevelDiff).not.toBe("0.00000000");
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("npm run bundles:verify -- DIR prints the figures and exits 0", () => {
    const out = spawnSync("npx", ["tsx", "scripts/bundles-verify.ts", dir], { encoding: "utf8" });
    expect(out.stdout).toMatch(/index levels: \d+ hours of \d+ indices recomputed; largest difference 0\.00000000/);
    expect(out.stdout).toContain("OK: every published value recomputes");
    expect(out.status).toBe(0);
  });
});
