import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { catchUp } from "@/lib/ingest/engine-runner";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { VOL_ROUNDING, verifyBundles, type Failure } from "@/lib/snapshots/verify-bundles";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";
import { runCommand as run } from "../support/run-command";

// Rule: every published number is recomputable from the monthly bundle files alone. The demo
// engine runs over two month boundaries in a database of its own; its closed months' bundles are
// written to disk as a user downloads them and recomputed by the verifier (`npm run bundles:verify`).

const START = new Date("2026-08-20T00:00:00Z");
const NOW = new Date("2026-10-02T00:30:00Z");
let db: OwnDatabase | undefined;
let prisma: PrismaClient;
let dir = "";
let report: ReturnType<typeof verifyBundles>;

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_bundles");
  prisma = db.prisma;
  await catchUp(prisma, { seed: 515151, start: START, now: NOW });
  expect(await buildMissingBundles(prisma, NOW)).toEqual(["2026-08", "2026-09"]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-"));
  for (const f of await prisma.snapshotFile.findMany()) {
    fs.mkdirSync(path.join(dir, f.month), { recursive: true });
    fs.writeFileSync(path.join(dir, f.month, f.name), f.content);
  }
  for (const b of await prisma.snapshotBundle.findMany())
    fs.writeFileSync(path.join(dir, b.month, "manifest.json"), JSON.stringify(b.manifest));
  report = verifyBundles(dir);
}, 600_000);

afterAll(async () => {
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const parsed = new Map<string, Array<Record<string, string>>>();
/** The rows of one file of the good folder, parsed once (tampering writes copies, never `dir`). */
const rows = (month: string, file: string) => {
  const k = path.join(month, file);
  if (!parsed.has(k))
    parsed.set(k, parse(fs.readFileSync(path.join(dir, k)), { columns: true }) as Array<Record<string, string>>);
  return parsed.get(k)!;
};

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
    for (const l of links)
      expect(l.new_link_factor).toBe(
        rows(l.completed_at!.slice(0, 7), "compositions.csv").find(
          (c) => c.ticker === l.ticker && c.composition_version === l.to_version,
        )?.link_factor,
      );
  });

  it("every hourly level of every index recomputes to a difference of exactly 0 at eight decimals", () => {
    const r = report;
    const levelRows = rows("2026-08", "index_levels.csv").length + rows("2026-09", "index_levels.csv").length;
    expect(r.months).toEqual(["2026-08", "2026-09"]);
    expect(r.integrity.failures).toEqual([]);
    expect(r.integrity.filesChecked).toBe(
      ["2026-08", "2026-09"].reduce(
        (n, m) => n + fs.readdirSync(path.join(dir, m)).filter((f) => f.endsWith(".csv")).length,
        0,
      ),
    );
    expect(r.index.failures).toEqual([]);
    expect(r.index.hours).toBe(levelRows);
    expect(r.index.indices).toBeGreaterThan(1);
    expect(r.index.maxLevelDiff).toBe("0.00000000");
    expect(r.index.basesChecked).toBeGreaterThan(r.index.indices);
    expect(r.index.maxBaseDiff).toBe("0");
  });

  it("every volatility value recomputes within its published rounding, and every gate decision is the same", () => {
    const r = report;
    const ticks = rows("2026-08", "volatility_history.csv").length + rows("2026-09", "volatility_history.csv").length;
    expect(r.volatility.failures).toEqual([]);
    expect(r.volatility.computations).toBe(ticks);
    expect(r.volatility.valuesChecked).toBeGreaterThan(ticks * 5);
    expect(r.volatility.maxValueDiff).toBeLessThanOrEqual(VOL_ROUNDING);
    expect(r.volatility.identityUnchecked).toBe(0);
    expect(r.volatility.gateDecisionsChecked).toBe(ticks);
    expect(r.volatility.gateMismatches).toBe(0);
    // every tenor's clock (speed, bounds, coverage, tier) recomputes exactly from the published increments
    expect(r.volatility.clockUnchecked).toBe(0);
    expect(r.volatility.clocksChecked).toBeGreaterThanOrEqual(ticks * 3);
    expect(r.volatility.attributionLegsChecked).toBeGreaterThan(ticks);
    const history = rows("2026-09", "volatility_history.csv");
    expect(history.some((h) => h.clock_increment_realized !== "" && Number(h.clock_increment_predicted) > 0)).toBe(
      true,
    );
    expect(
      history.some(
        (h) => (JSON.parse(h.clock_json!) as Record<string, { tier: string }>)["30"]?.tier === "historical-clock",
      ),
    ).toBe(true);
  });

  it("every bundle timestamp has microseconds and Z, inside JSON cells and in the manifest too", () => {
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
    for (const month of ["2026-08", "2026-09"]) {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, month, "manifest.json"), "utf8")) as {
        generatedAt: string;
        catalogs: Array<{ appliedAt: string }>;
      };
      expect(manifest.generatedAt).toMatch(iso);
      expect(manifest.catalogs.length).toBeGreaterThan(0);
      for (const c of manifest.catalogs) expect(c.appliedAt).toMatch(iso);
      const stamps =
        fs.readFileSync(path.join(dir, month, "chain_links.csv"), "utf8").match(/\d{4}-\d{2}-\d{2}T[0-9:.]+Z/g) ?? [];
      expect(stamps.length).toBeGreaterThan(0);
      for (const x of stamps) expect(x).toMatch(iso);
      for (const l of rows(month, "chain_links.csv"))
        for (const p of JSON.parse(l.prices_used_json!) as Array<{ observedAt: string }>)
          expect(p.observedAt).toMatch(iso);
    }
  });

  /**
   * A copy of one month's folder (September unless named) with `edit` applied to one file; `reseal`
   * writes the manifest to match the edited bytes. A tamper that needs no other month is made in
   * August, the smaller month (the series start there, so every computation's previous one is in
   * the folder): the verifiers recompute the whole folder, and a smaller one is checked sooner.
   */
  function tampered(file: string, edit: (records: string[][]) => void, reseal: boolean, month = "2026-09") {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-tampered-"));
    fs.cpSync(path.join(dir, month), copy, { recursive: true });
    const target = path.join(copy, file);
    const records = parse(fs.readFileSync(target)) as string[][];
    edit(records);
    fs.writeFileSync(target, stringify(records, { record_delimiter: "\r\n" }));
    if (reseal) {
      const manifestFile = path.join(copy, "manifest.json");
      const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as {
        files: Array<{ name: string; sha256: string; bytes: number }>;
      };
      const bytes = fs.readFileSync(target);
      const entry = manifest.files.find((f) => f.name === file)!;
      entry.sha256 = crypto.createHash("sha256").update(bytes).digest("hex");
      entry.bytes = bytes.length;
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    }
    return copy;
  }
  const cleanup: string[] = [];
  afterAll(() => {
    for (const c of cleanup) fs.rmSync(c, { recursive: true, force: true });
  });

  it("a file whose bytes no longer match the manifest fails, naming the file, before anything is recomputed", async () => {
    const copy = tampered(
      "volatility_history.csv",
      (records) => {
        records[1]![1] = `${records[1]![1]} `;
      },
      false,
      "2026-08",
    );
    cleanup.push(copy);
    const r = verifyBundles(copy);
    expect(r.integrity.failures.map((f) => [f.file, f.what])).toEqual([
      ["volatility_history.csv", "sha256"],
      ["volatility_history.csv", "bytes"],
    ]);
    const out = await run("npx", ["tsx", "scripts/bundles-verify.ts", copy]);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(
      /FAIL \S+ volatility_history\.csv sha256: published [0-9a-f]{64}, recomputed [0-9a-f]{64}/,
    );
  }, 600_000);

  it("piped (| tail), bundles:verify's long output arrives whole: the summary is its last line", async () => {
    // every mid price of the month moved: thousands of FAIL lines, far more than a pipe's buffer
    const copy = tampered(
      "constituent_prices.csv",
      (records) => {
        for (const cells of records.slice(1)) if (cells[4] === "mid") cells[3] = String(Number(cells[3]) / 2);
      },
      true,
    );
    cleanup.push(copy);
    const out = await run("bash", [
      "-c",
      `set -o pipefail; npx tsx scripts/bundles-verify.ts ${JSON.stringify(copy)} | tail -n 2`,
    ]);
    expect(out.status).toBe(1);
    const lines = out.stdout.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^FAILED: \d+ failing row\(s\) listed above$/);
    expect(Number(/^FAILED: (\d+)/.exec(lines.at(-1)!)![1]) * 60).toBeGreaterThan(65_536);
  }, 600_000);

  it("a missing manifest fails", () => {
    const copy = tampered("index_levels.csv", () => undefined, false, "2026-08");
    cleanup.push(copy);
    fs.rmSync(path.join(copy, "manifest.json"));
    expect(verifyBundles(copy).integrity.failures.map((f) => f.file)).toEqual(["manifest.json"]);
  });

  it("an altered price (manifest resealed) names every index level row it breaks: file, ticker, hour, published, recomputed", () => {
    let changed: string[] = [];
    const copy = tampered(
      "constituent_prices.csv",
      (records) => {
        const cells = records.find((r, n) => n > 0 && r[4] === "mid")!;
        cells[3] = String(Number(cells[3]) + 0.01);
        changed = cells;
      },
      true,
      "2026-08",
    );
    cleanup.push(copy);
    const r = verifyBundles(copy);
    expect(r.integrity.failures).toEqual([]);
    expect(r.index.maxLevelDiff).not.toBe("0.00000000");
    const named = r.index.failures.find(
      (f) => f.file === "index_levels.csv" && f.ticker === changed[0] && f.t === changed[1],
    ) as Failure;
    expect(named).toMatchObject({ month: path.basename(copy), what: "index_level" });
    const published = rows("2026-08", "index_levels.csv").find(
      (l) => l.ticker === changed[0] && l.t === changed[1],
    )!.index_level;
    expect(named.published).toBe(published);
    expect(named.recomputed).not.toBe(published);
    expect(named.recomputed).toMatch(/^\d+\.\d{8}$/);
  }, 600_000);

  it("an altered volatility value (manifest resealed) is named with its row", () => {
    let changed: string[] = [];
    const copy = tampered(
      "volatility_history.csv",
      (records) => {
        const cells = records[5]!;
        cells[2] = String(Number(cells[2]) + 0.001);
        changed = cells;
      },
      true,
      "2026-08",
    );
    cleanup.push(copy);
    const r = verifyBundles(copy);
    expect(r.integrity.failures).toEqual([]);
    expect(r.volatility.failures).toContainEqual(
      expect.objectContaining({
        file: "volatility_history.csv",
        ticker: changed[0],
        t: changed[1],
        what: "headline_pts",
        published: changed[2],
      }),
    );
  }, 600_000);

  it("an altered bid (manifest resealed) changes the gate decision the verifier reaches by the documented rule", () => {
    let changed: string[] = [];
    const clean = new Set(
      rows("2026-08", "volatility_history.csv")
        .filter((h) => h.gate_names_json === "[]" && h.status === "ok" && h.t! >= "2026-08-21")
        .map((h) => `${h.ticker}|${h.t}`),
    );
    const copy = tampered(
      "volatility_legs.csv",
      (records) => {
        // a quoted, unresolved leg of a computation that passed every gate
        const cells = records.find(
          (r, n) => n > 0 && clean.has(`${r[0]}|${r[1]}`) && r[10] !== "" && r[13] === "false",
        )!;
        cells[9] = "1"; // depth_usd 1: below every depth floor
        changed = cells;
      },
      true,
      "2026-08",
    );
    cleanup.push(copy);
    const r = verifyBundles(copy);
    const gate = r.volatility.failures.find(
      (f) => f.what === "status [gates]" && f.ticker === changed[0] && f.t === changed[1],
    );
    expect(gate?.recomputed).toContain("depth_floor");
    expect(gate?.published).not.toContain("depth_floor");
  }, 600_000);

  // The outside check: scripts/outside/recompute_bundles.py, Python's standard library only,
  // written from the methodology page and the bundle file reference (no code of the service).
  const outside = (folder: string) => run("python3", ["scripts/outside/recompute_bundles.py", folder]);
  const figure = (stdout: string, what: string) =>
    Number(new RegExp(`^${what}: (\\d+)$`, "m").exec(stdout)?.[1] ?? Number.NaN);

  it("the outside script imports nothing but Python's standard library", () => {
    const out = spawnSync(
      "python3",
      [
        "-c",
        "import ast, sys; t = ast.parse(open(sys.argv[1]).read()); m = {a.name.split('.')[0] for n in ast.walk(t) if isinstance(n, ast.Import) for a in n.names} | {n.module.split('.')[0] for n in ast.walk(t) if isinstance(n, ast.ImportFrom)}; print(sorted(m - set(sys.stdlib_module_names)))",
        "scripts/outside/recompute_bundles.py",
      ],
      { encoding: "utf8" },
    );
    expect(out.stdout.trim()).toBe("[]");
  });

  it("the outside script recomputes every level, volatility value, band, clock, increment, attribution, counterfactual and gate decision, and passes", async () => {
    const out = await outside(dir);
    const ticks = rows("2026-08", "volatility_history.csv").length + rows("2026-09", "volatility_history.csv").length;
    const attributionRows =
      rows("2026-08", "volatility_attribution.csv").length + rows("2026-09", "volatility_attribution.csv").length;
    expect(out.stdout).not.toContain("DIFF");
    expect(figure(out.stdout, "index levels")).toBe(
      rows("2026-08", "index_levels.csv").length + rows("2026-09", "index_levels.csv").length,
    );
    expect(figure(out.stdout, "volatility computations")).toBe(ticks);
    expect(figure(out.stdout, "gate decisions")).toBe(ticks);
    expect(figure(out.stdout, "counterfactuals")).toBe(ticks);
    expect(figure(out.stdout, "clock estimates")).toBeGreaterThanOrEqual(ticks * 3);
    expect(figure(out.stdout, "clock increments")).toBeGreaterThan(ticks / 2);
    expect(figure(out.stdout, "attribution legs")).toBe(attributionRows);
    expect(out.stdout).toContain("largest index level difference: 0.00000000");
    expect(out.stdout).toContain("OK: every published value recomputes from the bundle files");
    expect(out.status).toBe(0);
  }, 600_000);

  it("the outside script fails on a file that no longer matches its manifest, naming the file", async () => {
    const copy = tampered(
      "volatility_legs.csv",
      (records) => {
        records[1]![6] = `${records[1]![6]}0`;
      },
      false,
      "2026-08",
    );
    cleanup.push(copy);
    const out = await outside(copy);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(
      new RegExp(
        `^DIFF ${path.basename(copy)} volatility_legs\\.csv sha256: published [0-9a-f]{64}, recomputed [0-9a-f]{64}$`,
        "m",
      ),
    );
  }, 600_000);

  it("the outside script names the row of a tampered headline and attribution part (manifest resealed)", async () => {
    let headline: string[] = [];
    const history = tampered(
      "volatility_history.csv",
      (records) => {
        headline = records[5]!;
        headline[2] = (Number(headline[2]) + 0.000002).toFixed(6);
      },
      true,
      "2026-08",
    );
    cleanup.push(history);
    const out = await outside(history);
    expect(out.status).toBe(1);
    expect(out.stdout).toContain(
      `DIFF ${path.basename(history)} volatility_history.csv ${headline[0]} ${headline[1]} headline_pts: published ${headline[2]}, recomputed `,
    );

    let part: string[] = [];
    const attribution = tampered(
      "volatility_attribution.csv",
      (records) => {
        // a computation whose previous one is in the same month's folder
        part = records.find((r, n) => n > 0 && r[1]! >= "2026-08-21")!;
        part[6] = (Number(part[6]) + 0.00001).toFixed(6);
      },
      true,
      "2026-08",
    );
    cleanup.push(attribution);
    const out2 = await outside(attribution);
    expect(out2.status).toBe(1);
    expect(out2.stdout).toContain(
      `DIFF ${path.basename(attribution)} volatility_attribution.csv ${part[0]} ${part[1]} leg ${part[4]} delta_price: published ${part[6]}, recomputed `,
    );
  }, 600_000);

  it("the outside script names the row of a tampered clock speed, recomputed from the published increments of both months", async () => {
    let changed: string[] = [];
    const copy = tampered(
      "volatility_history.csv",
      (records) => {
        const header = records[0]!;
        const cells = records.find(
          (r, n) => n > 0 && r[1]! >= "2026-09-25" && r[header.indexOf("clock_json")]!.includes('"historical-clock"'),
        )!;
        const clock = JSON.parse(cells[header.indexOf("clock_json")]!) as Record<
          string,
          { tier: string; speed: number }
        >;
        const tenor = Object.keys(clock).find((k) => clock[k]!.tier === "historical-clock")!;
        changed = [cells[0]!, cells[1]!, tenor, String(clock[tenor]!.speed)];
        clock[tenor]!.speed *= 1.001;
        cells[header.indexOf("clock_json")] = JSON.stringify(clock);
      },
      true,
    );
    // the clock window of late September reaches into August: both months, September tampered
    const both = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-both-"));
    cleanup.push(copy, both);
    fs.cpSync(path.join(dir, "2026-08"), path.join(both, "2026-08"), { recursive: true });
    fs.cpSync(copy, path.join(both, "2026-09"), { recursive: true });
    const out = await outside(both);
    expect(out.status).toBe(1);
    expect(out.stdout).toContain(
      `DIFF 2026-09 volatility_history.csv ${changed[0]} ${changed[1]} clock ${changed[2]}d speed: published ${Number(changed[3]) * 1.001}, recomputed ${changed[3]}`,
    );
  }, 600_000);

  it("the outside script reaches a different gate decision on a tampered depth, and names the row", async () => {
    let changed: string[] = [];
    const clean = new Set(
      rows("2026-08", "volatility_history.csv")
        .filter((h) => h.gate_names_json === "[]" && h.status === "ok")
        .map((h) => `${h.ticker}|${h.t}`),
    );
    const copy = tampered(
      "volatility_legs.csv",
      (records) => {
        // a quoted, unresolved leg carrying less than the suspension share, of a computation whose previous one is in the folder
        const cells = records.find(
          (r, n) =>
            n > 0 &&
            r[1]! >= "2026-08-21" &&
            clean.has(`${r[0]}|${r[1]}`) &&
            r[10] !== "" &&
            r[13] === "false" &&
            Number(r[15]) < 0.2,
        )!;
        cells[9] = "1"; // depth_usd 1: below every depth floor
        changed = cells;
      },
      true,
      "2026-08",
    );
    cleanup.push(copy);
    const out = await outside(copy);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(
      new RegExp(
        `^DIFF ${path.basename(copy)} volatility_history\\.csv ${changed[0]} ${changed[1]!.replaceAll(".", "\\.")} status \\[gates\\]: published ok \\[\\], recomputed flagged \\[depth_floor\\]$`,
        "m",
      ),
    );
  }, 600_000);

  it("npm run bundles:verify -- DIR prints the figures and exits 0", async () => {
    const out = await run("npx", ["tsx", "scripts/bundles-verify.ts", dir]);
    expect(out.stdout).toMatch(
      /index levels: \d+ hours of \d+ indices recomputed \(0 of them back-calculated or filled from venue history\); largest difference 0\.00000000/,
    );
    expect(out.stdout).toContain("OK: every file matches its manifest and every published value recomputes");
    expect(out.status).toBe(0);
  }, 600_000);
});
