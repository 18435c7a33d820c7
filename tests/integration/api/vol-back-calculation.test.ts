import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VOL_ROUNDING, verifyBundles } from "@/lib/snapshots/verify-bundles";
import { createDatabase, dropDatabase, uniqueName } from "../support/pg";
import { startFakeVenues, type FakeVenues, type HistoryPrice } from "../../support/fake-venues";

// A volatility series back-calculated from a base date 35 days before its launch, one of whose legs
// is a Polymarket market that resolved inside the back window: the venue serves only 12-hour
// history for it, so its back-calculated hours take the latest 12-hour point at or before each
// hour (content/docs/methodology/recomputing.mdx). The closed month's bundle marks those hours
// (`history_fidelity_minutes` 720 on the leg in volatility_legs.csv and on the computation in
// volatility_history.csv), and both verifiers recompute every value of them.

const HOUR = 3_600_000;
const launch = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR);
const base = new Date(launch.getTime() - 35 * 24 * HOUR);
const at = (h: number) => new Date(base.getTime() + h * HOUR);
const sec = (d: Date) => d.getTime() / 1000;
const hourOf = (iso: string | undefined) => (Date.parse(iso!.replace(/(\.\d{3})\d*Z$/, "$1Z")) - base.getTime()) / HOUR;
const HOURS = 35 * 24;
/** The first hour of the month the launch is in: the months before it close, so their bundles are built. */
const closedUntil = (Date.UTC(launch.getUTCFullYear(), launch.getUTCMonth(), 1) - base.getTime()) / HOUR;
/** The hike leg's last history point: it resolved NO the hour after, inside the back window and a closed month (at least 74 hours in). */
const HIKE_LAST = Math.min(200, closedUntil - 24);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-volback-"));
const name = uniqueName("pmb_volback");
let url = "";
let fake: FakeVenues;
let client: pg.Client;

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
  volatility: [
    {
      ticker: "PMV-FEDDEC",
      slug: "fed-december",
      name: "Fed December Volatility",
      description: "Expected movement of the probabilities of the December Fed decision.",
      category: "macro",
      venue: "polymarket",
      event: "fed-decision-december",
      inceptionAt: base.toISOString(),
      launchAt: launch.toISOString(),
      tenorsDays: [7, 30],
      headlineTenorDays: 30,
      relatedIndexTickers: [],
    },
  ],
};

/** Hourly history from hour `from` to `until` (exclusive), the price per hour index. */
const hourly = (from: number, until: number, price: (h: number) => number): HistoryPrice[] =>
  Array.from({ length: until - from }, (_, i) => {
    const p = Number(price(from + i).toFixed(4));
    return { t: sec(at(from + i)), bid: p, ask: p };
  });

const cli = (script: string, args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: url,
          REDIS_URL: "",
          DEMO_MARKET: "0",
          POLYMARKET_GAMMA_URL: fake.gammaUrl,
          POLYMARKET_CLOB_URL: fake.clobUrl,
          KALSHI_API_URL: fake.kalshiUrl,
          COLLECT_TIMEOUT_MS: "3000",
        },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

beforeAll(async () => {
  url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  client = new pg.Client({ connectionString: url });
  await client.connect();
  fake = await startFakeVenues();
  const end = new Date(launch.getTime() + 60 * 24 * HOUR).toISOString();
  fake.poly.events.push(
    {
      slug: "btc-a",
      title: "BTC a",
      negRisk: false,
      tags: ["crypto"],
      endDate: end,
      markets: [{ conditionId: "0xbtc-a", question: "Will BTC reach a?", yesToken: "tok-a", endDate: end }],
    },
    {
      slug: "fed-decision-december",
      title: "Fed decision in December",
      negRisk: true,
      tags: ["economy"],
      endDate: end,
      markets: [
        { conditionId: "0xcut", question: "Fed: Cut?", groupItemTitle: "Cut", yesToken: "tok-cut", endDate: end },
        { conditionId: "0xhold", question: "Fed: Hold?", groupItemTitle: "Hold", yesToken: "tok-hold", endDate: end },
        // resolved NO inside the back window: the venue has only its 12-hour points
        {
          conditionId: "0xhike",
          question: "Fed: Hike?",
          groupItemTitle: "Hike",
          yesToken: "tok-hike",
          endDate: end,
          closed: true,
          outcomePrices: ["0", "1"],
        },
      ],
    },
  );
  fake.history.poly.set(
    "tok-a",
    hourly(0, HOURS + 3, (h) => 0.4 + 0.0002 * h),
  );
  fake.history.poly.set(
    "tok-cut",
    hourly(0, HOURS + 3, (h) => 0.3 + 0.0003 * h),
  );
  fake.history.poly.set(
    "tok-hold",
    hourly(0, HOURS + 3, (h) => 0.6 - 0.0004 * h),
  );
  fake.history.poly.set(
    "tok-hike",
    hourly(0, HOURS + 3, (h) => (h <= HIKE_LAST ? 0.1 + 0.0002 * h : 0)).filter((x) => x.t <= sec(at(HIKE_LAST))),
  );
  const file = path.join(dir, "catalog.json");
  fs.writeFileSync(file, JSON.stringify(catalog, null, 2));
  const applied = await cli("scripts/catalog.ts", ["apply", file]);
  expect(applied.status, applied.stderr).toBe(0);
}, 240_000);

afterAll(async () => {
  await client?.end();
  await fake?.close();
  await dropDatabase(name);
});

/** The hike leg's 12-hour points (t a multiple of 12 hours), as hour indices. */
const hikePoints = () => Array.from({ length: HIKE_LAST + 1 }, (_, h) => h).filter((h) => sec(at(h)) % 43_200 === 0);

describe("a volatility series whose leg resolved inside the back window", () => {
  it("is back-calculated with the resolved leg priced from its 12-hour points, marked 720 in the closed month's bundle, and every value recomputes", async () => {
    const r = await cli("scripts/collect.ts", ["--once", "--at", launch.toISOString()]);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const fidelity = await client.query<{ conditionId: string; historyFidelityMinutes: number | null }>(
      `SELECT "conditionId", "historyFidelityMinutes" FROM markets WHERE "historyFidelityMinutes" IS NOT NULL`,
    );
    expect(fidelity.rows).toEqual([{ conditionId: "0xhike", historyFidelityMinutes: 720 }]);

    const built = await cli("scripts/snapshots-build.ts", []);
    expect(built.status, built.stderr).toBe(0);
    // every closed month from the base date's (the hike leg resolved in one of them)
    const files = await client.query<{ month: string; name: string; content: string }>(
      `SELECT month, name, content FROM snapshot_files ORDER BY month`,
    );
    const bundles = await client.query<{ month: string; manifest: object }>(
      `SELECT month, manifest FROM snapshot_bundles ORDER BY month`,
    );
    expect(bundles.rows[0]!.month).toBe(base.toISOString().slice(0, 7));
    for (const b of bundles.rows) {
      fs.mkdirSync(path.join(dir, "bundles", b.month), { recursive: true });
      fs.writeFileSync(path.join(dir, "bundles", b.month, "manifest.json"), JSON.stringify(b.manifest));
    }
    for (const f of files.rows) fs.writeFileSync(path.join(dir, "bundles", f.month, f.name), f.content);
    const csvOf = (file: string) => {
      const contents = files.rows.filter((f) => f.name === file).map((f) => f.content);
      return {
        header: contents[0]!.slice(0, contents[0]!.indexOf("\r\n")).split(","),
        rows: contents.flatMap((c) => parse(c, { columns: true }) as Array<Record<string, string>>),
      };
    };

    // the leg panel: the hike leg's quotes are its 12-hour points carried to the hour, marked 720
    const legs = csvOf("volatility_legs.csv");
    expect(legs.header.at(-1)).toBe("history_fidelity_minutes");
    const hike = legs.rows.filter((l) => l.condition_id === "0xhike" && l.observed_at !== "");
    const points = hikePoints();
    expect(hike.length).toBeGreaterThan(0);
    for (const l of hike) {
      // its settlement once resolved is not a point of the history: not marked
      if (l.resolved === "true") {
        expect([l.t, l.history_fidelity_minutes]).toEqual([l.t, ""]);
        continue;
      }
      expect([l.t, l.source, l.history_fidelity_minutes]).toEqual([l.t, "history", "720"]);
      // the latest 12-hour point at or before the hour, carried forward
      const h = hourOf(l.t);
      const point = Math.max(...points.filter((p) => p <= h));
      expect([l.t, Number(l.mid)]).toEqual([l.t, Number((0.1 + 0.0002 * point).toFixed(4))]);
    }
    const others = legs.rows.filter((l) => l.condition_id !== "0xhike");
    expect(new Set(others.map((l) => l.history_fidelity_minutes))).toEqual(new Set([""]));

    // the computations: 720 exactly at the hours a leg was priced from a 12-hour point, before basis
    const history = csvOf("volatility_history.csv");
    expect(history.header.slice(-2)).toEqual(["history_fidelity_minutes", "basis"]);
    const hikeHours = new Set(hike.filter((l) => l.resolved === "false").map((l) => l.t));
    const marked = history.rows.filter((v) => v.history_fidelity_minutes === "720").map((v) => v.t);
    expect(marked.length).toBe(hikeHours.size);
    expect(new Set(marked)).toEqual(hikeHours);
    expect(history.rows.filter((v) => !hikeHours.has(v.t!)).every((v) => v.history_fidelity_minutes === "")).toBe(true);
    // the leg is in the history while it traded (from the first 12-hour point of the window) and leaves after it resolved
    expect(Math.min(...[...hikeHours].map(hourOf))).toBeGreaterThanOrEqual(points[0]!);
    expect(Math.min(...[...hikeHours].map(hourOf))).toBeLessThanOrEqual(points[0]! + 1);
    expect(Math.max(...[...hikeHours].map(hourOf))).toBeLessThanOrEqual(HIKE_LAST + 1);
    expect(history.rows.some((v) => hourOf(v.t!) > HIKE_LAST + 2)).toBe(true);

    // both verifiers recompute every value, the marked hours included, and check the marks
    const report = verifyBundles(path.join(dir, "bundles"));
    expect(report.integrity.failures).toEqual([]);
    expect(report.index.failures).toEqual([]);
    expect(report.volatility.failures).toEqual([]);
    expect(report.volatility.computations).toBe(history.rows.length);
    expect(report.volatility.coarseHistory).toBe(hikeHours.size);
    expect(report.volatility.maxValueDiff).toBeLessThanOrEqual(VOL_ROUNDING);
    const verify = await cli("scripts/bundles-verify.ts", [path.join(dir, "bundles")]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toContain(
      `, ${hikeHours.size} from venue history coarser than hourly (history_fidelity_minutes)`,
    );
    const outside = spawnSync("python3", ["scripts/outside/recompute_bundles.py", path.join(dir, "bundles")], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(outside.status, outside.stdout.slice(-3000) + outside.stderr).toBe(0);
    expect(outside.stdout).toContain(`volatility computations from history coarser than hourly: ${hikeHours.size}`);

    // bundles built before the column (no history_fidelity_minutes anywhere) still verify: hourly or live
    const dropColumn = (content: string) => {
      const rows = parse(content, { columns: false }) as string[][];
      const k = rows[0]!.indexOf("history_fidelity_minutes");
      return rows.map((r) => r.filter((_, i) => i !== k));
    };
    for (const f of files.rows) {
      fs.mkdirSync(path.join(dir, "old", f.month), { recursive: true });
      const content = ["volatility_legs.csv", "volatility_history.csv", "index_levels.csv"].includes(f.name)
        ? dropColumn(f.content)
            .map((r) => r.map((c) => (/[",\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(","))
            .join("\r\n") + "\r\n"
        : f.content;
      fs.writeFileSync(path.join(dir, "old", f.month, f.name), content);
    }
    const older = verifyBundles(path.join(dir, "old"));
    expect(older.volatility.failures).toEqual([]);
    expect(older.index.failures).toEqual([]);
    expect(older.volatility.coarseHistory).toBe(0);
    expect(older.volatility.computations).toBe(history.rows.length);
  }, 600_000);

  it("a mark on a live hour or one that is not the coarsest of the legs' is a failure the verifier names", () => {
    fs.cpSync(path.join(dir, "bundles"), path.join(dir, "tampered"), { recursive: true });
    // the first unmarked back-calculated hour, marked 720
    const month = fs
      .readdirSync(path.join(dir, "tampered"))
      .sort()
      .find((m) =>
        fs
          .readFileSync(path.join(dir, "tampered", m, "volatility_history.csv"), "utf8")
          .includes(",,back-calculated\r\n"),
      )!;
    const file = path.join(dir, "tampered", month, "volatility_history.csv");
    const lines = fs.readFileSync(file, "utf8").split("\r\n");
    const k = lines[0]!.split(",").indexOf("history_fidelity_minutes");
    const i = lines.findIndex((l, n) => n > 0 && l.endsWith(",,back-calculated"));
    expect(i).toBeGreaterThan(0);
    lines[i] = lines[i]!.replace(/,,back-calculated$/, ",720,back-calculated");
    fs.writeFileSync(file, lines.join("\r\n"));
    expect(k).toBeGreaterThan(0);
    const report = verifyBundles(path.join(dir, "tampered"));
    const t = lines[i]!.split(",")[1];
    expect(report.volatility.failures).toEqual([
      {
        month,
        file: "volatility_history.csv",
        ticker: "PMV-FEDDEC",
        t,
        what: "history_fidelity_minutes",
        published: "720",
        recomputed: "",
      },
    ]);
  }, 120_000);
});
