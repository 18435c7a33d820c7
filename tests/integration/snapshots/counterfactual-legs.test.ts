import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { catchUp } from "@/lib/ingest/engine-runner";
import { SCHEMA_VERSION, buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { verifyBundles } from "@/lib/snapshots/verify-bundles";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";
import { runCommand as run } from "../support/run-command";

// Rule: the counterfactual recomputes from the bundle files after an inception leg has left the
// series. The demo engine runs in a database of its own; at LEAVE one leg of a series leaves (its
// window closes, as the collector closes it when the venue no longer lists the leg) while its
// market stays quoted. The month's bundle carries that leg's quotes in
// volatility_counterfactual_legs.csv, and both verifiers recompute every counterfactual from them.

const SEED = 424242;
const START = new Date("2026-08-20T00:00:00Z");
const MID = new Date("2026-08-25T00:30:00Z");
const LEAVE = "2026-08-26T00:00:00.000Z";
const NOW = new Date("2026-09-01T00:30:00Z");
const SERIES = "PMV-NOMINEE";
const MONTH = "2026-08";
const CF_FILE = "volatility_counterfactual_legs.csv";

let db: OwnDatabase | undefined;
let prisma: PrismaClient;
let dir = "";
let leaving = "";
let inceptionLegs: string[] = [];
const cleanup: string[] = [];

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_cf_legs");
  prisma = db.prisma;
  await catchUp(prisma, { seed: SEED, start: START, now: MID });
  const row = await prisma.volatilitySeries.findUniqueOrThrow({
    where: { ticker: SERIES },
    select: { legConditionIds: true },
  });
  inceptionLegs = row.legConditionIds;
  expect(inceptionLegs.length).toBeGreaterThan(2);
  // a leg in the middle of the grid leaves at LEAVE
  leaving = inceptionLegs[1]!;
  await prisma.volatilitySeries.update({
    where: { ticker: SERIES },
    data: {
      legConditionIds: inceptionLegs.filter((id) => id !== leaving),
      legWindows: inceptionLegs.map((conditionId) => ({
        conditionId,
        from: null,
        until: conditionId === leaving ? LEAVE : null,
      })),
    },
  });
  await catchUp(prisma, { seed: SEED, now: NOW });
  expect(await buildMissingBundles(prisma, NOW)).toEqual([MONTH]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-cf-legs-"));
  for (const f of await prisma.snapshotFile.findMany()) {
    fs.mkdirSync(path.join(dir, f.month), { recursive: true });
    fs.writeFileSync(path.join(dir, f.month, f.name), f.content);
  }
  for (const b of await prisma.snapshotBundle.findMany())
    fs.writeFileSync(path.join(dir, b.month, "manifest.json"), JSON.stringify(b.manifest));
}, 600_000);

afterAll(async () => {
  await db?.drop();
  for (const d of [dir, ...cleanup]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

type Row = Record<string, string>;
const rowsOf = (folder: string, file: string) =>
  parse(fs.readFileSync(path.join(folder, file)), { columns: true }) as Row[];

const outside = (folder: string) => run("python3", ["scripts/outside/recompute_bundles.py", folder]);
const figure = (stdout: string, what: string) =>
  Number(new RegExp(`^${what}: (\\d+)$`, "m").exec(stdout)?.[1] ?? Number.NaN);

/** A copy of the month's folder with `edit` applied to one file and the manifest resealed to the edited bytes. */
function tampered(file: string, edit: (records: string[][]) => void): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-cf-legs-tampered-"));
  cleanup.push(copy);
  fs.cpSync(path.join(dir, MONTH), copy, { recursive: true });
  const target = path.join(copy, file);
  const records = parse(fs.readFileSync(target)) as string[][];
  edit(records);
  fs.writeFileSync(target, stringify(records, { record_delimiter: "\r\n" }));
  const manifestFile = path.join(copy, "manifest.json");
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as {
    files: Array<{ name: string; sha256: string; bytes: number; rows: number }>;
  };
  const bytes = fs.readFileSync(target);
  const entry = manifest.files.find((f) => f.name === file)!;
  entry.sha256 = crypto.createHash("sha256").update(bytes).digest("hex");
  entry.bytes = bytes.length;
  entry.rows = records.length - 1;
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  return copy;
}

describe("the counterfactual recomputes from the bundle after an inception leg leaves", () => {
  it("the bundle lists the departed leg's quotes at every hour after it left, and only then", () => {
    const folder = path.join(dir, MONTH);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, "manifest.json"), "utf8")) as {
      schemaVersion: number;
      files: Array<{ name: string; rows: number }>;
    };
    expect(manifest.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(7);
    const cf = rowsOf(folder, CF_FILE);
    expect(manifest.files.find((f) => f.name === CF_FILE)?.rows).toBe(cf.length);
    const history = rowsOf(folder, "volatility_history.csv").filter((h) => h.ticker === SERIES);
    const after = history.filter((h) => Date.parse(h.t!) >= Date.parse(LEAVE));
    expect(after.length).toBeGreaterThan(100);
    expect(cf.map((r) => [r.ticker, r.t, r.condition_id])).toEqual(after.map((h) => [SERIES, h.t, leaving]));
    // quoted at the hour (the market is still listed by the demo), never in the leg panel after it left
    for (const r of cf) expect(Date.parse(r.observed_at!)).toBeLessThanOrEqual(Date.parse(r.t!));
    const panel = rowsOf(folder, "volatility_legs.csv").filter(
      (l) => l.ticker === SERIES && l.condition_id === leaving,
    );
    expect(panel.length).toBe(history.length - after.length);
    expect(panel.every((l) => Date.parse(l.t!) < Date.parse(LEAVE))).toBe(true);
    // the counterfactual still prices the departed leg, so it differs from the live value
    for (const h of after)
      expect((JSON.parse(h.counterfactual_json!) as { rPts: number }).rPts).not.toBe(Number(h.fbv_r_pts));
  });

  it("bundles:verify recomputes every counterfactual, those after the leg left included", () => {
    const r = verifyBundles(dir);
    const ticks = rowsOf(path.join(dir, MONTH), "volatility_history.csv").length;
    expect(r.integrity.failures).toEqual([]);
    expect(r.volatility.failures).toEqual([]);
    expect(r.volatility.computations).toBe(ticks);
    expect(r.volatility.counterfactualsChecked).toBe(ticks);
    expect(r.volatility.counterfactualUnchecked).toBe(0);
    expect(r.volatility.gateMismatches).toBe(0);
  });

  it("the outside script recomputes every counterfactual, those after the leg left included, and passes", async () => {
    const out = await outside(dir);
    const ticks = rowsOf(path.join(dir, MONTH), "volatility_history.csv").length;
    expect(out.stdout).not.toContain("DIFF");
    expect(figure(out.stdout, "counterfactuals")).toBe(ticks);
    expect(figure(out.stdout, "counterfactual legs no longer in force")).toBe(
      rowsOf(path.join(dir, MONTH), CF_FILE).length,
    );
    expect(out.stdout).not.toContain("counterfactuals with an inception leg in neither leg file");
    expect(out.status).toBe(0);
  }, 600_000);

  it("without the departed legs' rows the counterfactuals after the leg left cannot be recomputed, and are counted so", async () => {
    const copy = tampered(CF_FILE, (records) => records.splice(1));
    const after = rowsOf(path.join(dir, MONTH), CF_FILE).length;
    const r = verifyBundles(copy);
    expect(r.volatility.failures).toEqual([]);
    expect(r.volatility.counterfactualUnchecked).toBe(after);
    const out = await outside(copy);
    expect(figure(out.stdout, "counterfactuals with an inception leg in neither leg file")).toBe(after);
  }, 600_000);

  it("a tampered mid of a departed leg (manifest resealed) is named with its row by both verifiers", async () => {
    let changed: string[] = [];
    const copy = tampered(CF_FILE, (records) => {
      const header = records[0]!;
      const mid = header.indexOf("mid");
      changed = records[Math.floor(records.length / 2)]!;
      changed[mid] = (Number(changed[mid]) + 0.05).toFixed(6);
    });
    const published = rowsOf(path.join(dir, MONTH), "volatility_history.csv").find(
      (h) => h.ticker === changed[0] && h.t === changed[1],
    )!;
    const rPts = String((JSON.parse(published.counterfactual_json!) as { rPts: number }).rPts);

    const r = verifyBundles(copy);
    expect(r.integrity.failures).toEqual([]);
    const named = r.volatility.failures.filter((f) => f.ticker === changed[0] && f.t === changed[1]);
    expect(named).toContainEqual(
      expect.objectContaining({ file: "volatility_history.csv", what: "counterfactual rPts", published: rPts }),
    );
    expect(named.every((f) => f.what.startsWith("counterfactual "))).toBe(true);
    const ts = await run("npx", ["tsx", "scripts/bundles-verify.ts", copy]);
    expect(ts.status).toBe(1);
    expect(ts.stdout).toContain(
      `FAIL ${path.basename(copy)} volatility_history.csv ${changed[0]} ${changed[1]} counterfactual rPts: published ${rPts}, recomputed `,
    );

    const out = await outside(copy);
    expect(out.status).toBe(1);
    expect(out.stdout).toContain(
      `DIFF ${path.basename(copy)} volatility_history.csv ${changed[0]} ${changed[1]} counterfactual rPts: published ${rPts}, recomputed `,
    );
  }, 600_000);

  it("a leg of the panel listed as departed (manifest resealed) is named in the departed legs' file", async () => {
    let changed: string[] = [];
    const copy = tampered(CF_FILE, (records) => {
      const header = records[0]!;
      changed = records[1]!;
      changed[header.indexOf("condition_id")] = inceptionLegs[0]!;
    });
    const r = verifyBundles(copy);
    expect(r.volatility.failures).toContainEqual(
      expect.objectContaining({
        file: CF_FILE,
        ticker: changed[0],
        t: changed[1],
        recomputed: "in force (a row of volatility_legs.csv)",
      }),
    );
    const out = await outside(copy);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(
      new RegExp(
        `^DIFF ${path.basename(copy)} ${CF_FILE.replaceAll(".", "\\.")} ${changed[0]} ${changed[1]!.replaceAll(".", "\\.")} leg \\S+: published an inception leg no longer in force, recomputed in force \\(a row of volatility_legs\\.csv\\)$`,
        "m",
      ),
    );
  }, 600_000);
});
