import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { NameAsTextPool } from "@/lib/db/pg-pool";
import { catchUp } from "@/lib/ingest/engine-runner";
import { buildMissingBundles, type MonthManifest } from "@/lib/snapshots/build-bundles";
import { dropDatabase, migratedDatabase, uniqueName } from "../support/pg";
import { runCommand as run } from "../support/run-command";

// Rule: published bundles are exactly reproducible. Four closed months of the demo built the way
// the server builds them (a backfill in 48-hour chunks, each its own transaction that reloads the
// engine's and the demo's states, then every later hour its own catch-up) are byte-identical to
// the same months computed in one catch-up, and both verifiers (`npm run bundles:verify` and the
// outside Python script) recompute every published value, the clock and the forecast record
// included, with 0 failures.

const SEED = 515151;
const START = new Date("2026-07-01T00:00:00Z");
const NOW = new Date("2026-11-01T00:30:00Z");
const MONTHS = ["2026-07", "2026-08", "2026-09", "2026-10"];
const HOURLY = 24;

interface Built {
  name: string;
  pool: NameAsTextPool;
  prisma: PrismaClient;
  files: Map<string, Buffer>;
  manifests: Map<string, MonthManifest>;
}
const built: Built[] = [];
let dir = "";

async function build(chunkHours: number | null): Promise<Built> {
  const name = uniqueName("pmb_repro");
  const { pool, prisma } = await migratedDatabase(name);
  const b: Built = { name, pool, prisma, files: new Map(), manifests: new Map() };
  built.push(b);
  const backfillUntil = new Date(NOW.getTime() - HOURLY * 3_600_000);
  if (chunkHours === null) {
    await catchUp(prisma, { seed: SEED, start: START, now: NOW });
  } else {
    // the server's backfill: chunks of at most chunkHours, the catalog brought in force by the first
    for (let first = true; ; first = false) {
      const r = await catchUp(prisma, {
        seed: SEED,
        start: START,
        now: backfillUntil,
        maxHours: chunkHours,
        ...(first ? {} : { catalog: null }),
      });
      if (r.hours < chunkHours) break;
    }
    // then the scheduler: one catch-up per hour
    for (let h = HOURLY - 1; h >= 0; h--) {
      const r = await catchUp(prisma, {
        seed: SEED,
        start: START,
        now: new Date(NOW.getTime() - h * 3_600_000),
        catalog: null,
      });
      expect(r.hours).toBe(1);
    }
  }
  expect(await buildMissingBundles(prisma, NOW)).toEqual(MONTHS);
  for (const f of await prisma.snapshotFile.findMany())
    b.files.set(`${f.month}/${f.name}`, Buffer.from(f.content, "utf8"));
  for (const m of await prisma.snapshotBundle.findMany())
    b.manifests.set(m.month, m.manifest as unknown as MonthManifest);
  return b;
}

beforeAll(async () => {
  const [chunked] = await Promise.all([build(48), build(null)]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-repro-"));
  for (const [name, content] of chunked!.files) {
    fs.mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  for (const [month, manifest] of chunked!.manifests)
    fs.writeFileSync(path.join(dir, month, "manifest.json"), JSON.stringify(manifest));
}, 1_200_000);

afterAll(async () => {
  for (const b of built) {
    await b.prisma.$disconnect();
    await b.pool.end().catch(() => undefined);
    await dropDatabase(b.name);
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const rows = (month: string, file: string) =>
  parse(fs.readFileSync(path.join(dir, month, file)), { columns: true }) as Array<Record<string, string>>;

describe("bundles are exactly reproducible however the hours were grouped into computations", () => {
  it("a backfill in 48-hour chunks then hourly catch-ups builds bundles byte-identical to one catch-up", () => {
    const [chunked, once] = built as [Built, Built];
    expect([...chunked.files.keys()].sort()).toEqual([...once.files.keys()].sort());
    const differing = [...chunked.files]
      .filter(([name, content]) => !content.equals(once.files.get(name)!))
      .map(([name]) => name);
    expect(differing).toEqual([]);
    for (const month of MONTHS) {
      const files = (m: MonthManifest) => m.files.map((f) => `${f.name} ${f.sha256} ${f.bytes} ${f.rows}`);
      expect(files(chunked.manifests.get(month)!)).toEqual(files(once.manifests.get(month)!));
    }
  });

  it("the forecast record is a file of every month, listed in its manifest", () => {
    for (const month of MONTHS) {
      const entry = built[0]!.manifests.get(month)!.files.find((f) => f.name === "volatility_forecast_record.csv");
      expect(entry?.sha256).toBe(
        crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(dir, month, "volatility_forecast_record.csv")))
          .digest("hex"),
      );
    }
    const record = rows("2026-10", "volatility_forecast_record.csv");
    expect(new Set(record.map((r) => r.tenor_days))).toEqual(new Set(["7", "30", "90"]));
    expect(new Set(record.map((r) => r.ticker)).size).toBe(4);
    for (const r of record.slice(0, 50)) {
      expect(Date.parse(r.window_end!) - Date.parse(r.window_start!)).toBe(Number(r.tenor_days) * 86_400_000);
      expect(r.window_end! >= "2026-10-01").toBe(true);
    }
  });

  it("npm run bundles:verify recomputes every published value, the clock and the forecast record, with 0 failures", async () => {
    // in a process of its own: a synchronous run of a minute would stall this worker's reports
    const out = await run("npx", ["tsx", "scripts/bundles-verify.ts", dir]);
    expect(
      out.stdout
        .split("\n")
        .filter((l) => l.startsWith("FAIL"))
        .slice(0, 5),
    ).toEqual([]);
    expect(out.stdout).toContain(`months: ${MONTHS.join(", ")}`);
    const recordRows = MONTHS.reduce((n, m) => n + rows(m, "volatility_forecast_record.csv").length, 0);
    expect(out.stdout).toContain(`forecast record: ${recordRows} windows recomputed\n`);
    expect(
      Number(/clock estimates from the hourly increments: (\d+) recomputed/.exec(out.stdout)?.[1]),
    ).toBeGreaterThan(10_000);
    expect(out.stdout).toContain(
      "OK: every file matches its manifest and every published value recomputes from the bundle files",
    );
    expect(out.status).toBe(0);
  }, 600_000);

  it("the outside Python script passes with 0 differences", async () => {
    const out = await run("python3", ["scripts/outside/recompute_bundles.py", dir]);
    expect(
      out.stdout
        .split("\n")
        .filter((l) => l.startsWith("DIFF"))
        .slice(0, 5),
    ).toEqual([]);
    const figure = (what: string) => Number(new RegExp(`^${what}: (\\d+)$`, "m").exec(out.stdout)?.[1] ?? Number.NaN);
    expect(figure("forecast record windows")).toBe(
      MONTHS.reduce((n, m) => n + rows(m, "volatility_forecast_record.csv").length, 0),
    );
    expect(figure("clock estimates")).toBeGreaterThan(0);
    expect(out.stdout).toContain("OK: every published value recomputes from the bundle files");
    expect(out.status).toBe(0);
  }, 600_000);
});
