import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { forecastWindows, realizedMovePts, type RecordPoint } from "@/lib/engine/volatility/forecast-record";
import type { InceptionConfig } from "@/lib/engine/volatility/types";
import {
  VOL_ROUNDING,
  csvRecords,
  key,
  monthDirs,
  readCsv,
  type ClockTrack,
  type IndexReport,
  type IntegrityReport,
  type Recomputed,
  type VerifyReport,
  type VolReport,
} from "@/lib/snapshots/verify-common";
import { verifyIndexMonth } from "@/lib/snapshots/verify-index-month";
import { verifyVolMonth } from "@/lib/snapshots/verify-vol-month";

export {
  VOL_ROUNDING,
  formatFailure,
  monthDirs,
  volRulesOf,
  type Failure,
  type IndexReport,
  type IntegrityReport,
  type VerifyReport,
  type VolReport,
} from "@/lib/snapshots/verify-common";
export { decideGates } from "@/lib/snapshots/verify-gates";

// Recomputes every published number of downloaded monthly bundles from the bundle files alone.
// Index levels: L_t = base_level * sum(w_i * p_i,t) / base_basket_value of the composition that
// priced t, in decimal arithmetic with 50 significant digits (multiply first), rounded to eight
// decimals ROUND_HALF_EVEN (lib/snapshots/verify-index-month.ts). Volatility: the engine's
// published formulas over the leg panel, and the gates decided here by the documented rules in
// exact decimal arithmetic, not by the engine's gate code (lib/snapshots/verify-vol-month.ts).
// First of all, every file is checked against the month's manifest.json.

/** Each file named in the month's manifest.json: present, and its sha256, size and row count as listed. */
function verifyManifest(dir: string, report: IntegrityReport): void {
  const month = path.basename(dir);
  const fail = (file: string, what: string, published: string, recomputed: string) =>
    report.failures.push({ month, file, ticker: null, t: null, what, published, recomputed });
  const manifestFile = path.join(dir, "manifest.json");
  if (!fs.existsSync(manifestFile)) {
    fail(
      "manifest.json",
      "manifest",
      "a manifest.json beside the files",
      "none in this folder (download it with the files)",
    );
    return;
  }
  let files: Array<{ name: string; bytes: number; sha256: string; rows: number }>;
  try {
    files = (JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { files: typeof files }).files;
    if (!Array.isArray(files)) throw new Error("no files list");
  } catch (error) {
    fail("manifest.json", "manifest", "JSON with a files list", `unreadable (${(error as Error).message})`);
    return;
  }
  for (const f of files) {
    const file = path.join(dir, f.name);
    report.filesChecked += 1;
    if (!fs.existsSync(file)) {
      fail(f.name, "file", "listed in manifest.json", "missing from the folder");
      continue;
    }
    const content = fs.readFileSync(file);
    const sha = crypto.createHash("sha256").update(content).digest("hex");
    if (sha !== f.sha256) fail(f.name, "sha256", f.sha256, sha);
    if (content.length !== f.bytes) fail(f.name, "bytes", String(f.bytes), String(content.length));
    const rows = csvRecords(content);
    if (rows !== f.rows) fail(f.name, "rows", String(f.rows), String(rows));
  }
}

/**
 * The forecast record (volatility_forecast_record.csv): each window's expected move is the tenor's
 * published points at its start (volatility_history.csv), its realized move is recomputed from the
 * leg panel's p at both ends (volatility_legs.csv), and every window that closed in the month and
 * starts in DIR has its row. `points` carries the computations of earlier months.
 */
function verifyForecastRecord(dir: string, report: VolReport, points: Map<string, Map<number, RecordPoint>>): void {
  const month = path.basename(dir);
  const manifestFile = path.join(dir, "manifest.json");
  // the record is in bundles from schemaVersion 7 on; earlier months still feed the windows that start in them
  const hasRecord =
    fs.existsSync(manifestFile) &&
    Number((JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { schemaVersion?: unknown }).schemaVersion) >= 7;
  const legP = new Map<string, Map<string, number>>();
  for (const r of readCsv(dir, "volatility_legs.csv")) {
    const k = key(r.ticker!, r.t!);
    if (!legP.has(k)) legP.set(k, new Map());
    if (r.p !== undefined && r.p !== "") legP.get(k)!.set(r.condition_id!, Number(r.p));
  }
  const tenorsOf = new Map(
    readCsv(dir, "volatility_series.csv").map((r) => [r.ticker!, JSON.parse(r.tenors_days_json!) as number[]]),
  );
  let first = Number.POSITIVE_INFINITY;
  for (const r of readCsv(dir, "volatility_history.csv")) {
    const ms = Date.parse(r.t!);
    // a row whose hour does not read is reported by the history's own checks
    if (!Number.isFinite(ms)) continue;
    first = Math.min(first, ms);
    const tenors = JSON.parse(r.tenors_json!) as Record<string, { pts: number }>;
    if (!points.has(r.ticker!)) points.set(r.ticker!, new Map());
    points.get(r.ticker!)!.set(ms, {
      ms,
      published: r.publication_state === "published",
      tenorPts: Object.fromEntries(Object.entries(tenors).map(([k, v]) => [k, v.pts])),
      p: legP.get(key(r.ticker!, r.t!)) ?? new Map(),
    });
  }
  if (!hasRecord) return;
  const file = "volatility_forecast_record.csv";
  const fail = (ticker: string, t: string | null, what: string, published: string, recomputed: string) =>
    report.failures.push({ month, file, ticker, t, what, published, recomputed });
  const rows = new Map(readCsv(dir, file).map((r) => [key(r.ticker!, r.tenor_days!, r.window_start!), r]));
  const dirStart = Math.min(...[...points.values()].map((m) => Math.min(...m.keys())));
  for (const [ticker, byMs] of points) {
    const tenors = tenorsOf.get(ticker) ?? [];
    for (const w of forecastWindows([...byMs.values()], tenors)) {
      if (w.endMs < first) continue;
      const start = new Date(w.startMs).toISOString().replace(/Z$/, "000Z");
      const r = rows.get(key(ticker, String(w.tenorDays), start));
      rows.delete(key(ticker, String(w.tenorDays), start));
      report.recordWindowsChecked += 1;
      if (r === undefined) {
        fail(
          ticker,
          start,
          `${w.tenorDays}d window`,
          "no row",
          `expected ${w.expectedPts} / realized ${w.realizedPts}`,
        );
        continue;
      }
      if (Date.parse(r.window_end!) !== w.endMs)
        fail(ticker, start, `${w.tenorDays}d window_end`, r.window_end!, new Date(w.endMs).toISOString());
      if (Number(r.expected_pts) !== w.expectedPts)
        fail(ticker, start, `${w.tenorDays}d expected_pts`, r.expected_pts!, String(w.expectedPts));
      const realized = realizedMovePts(byMs.get(w.startMs)!.p, byMs.get(w.endMs)!.p);
      if (Math.abs(Number(r.realized_pts) - realized) > VOL_ROUNDING)
        fail(ticker, start, `${w.tenorDays}d realized_pts`, r.realized_pts!, String(realized));
    }
  }
  // rows left: a window whose start is before DIR, or one that should not be there
  for (const r of rows.values()) {
    if (Date.parse(r.window_start!) < dirStart) report.recordUnchecked += 1;
    else
      fail(
        r.ticker!,
        r.window_start!,
        `${r.tenor_days}d window`,
        "a row",
        "no such closed window (start or end not published)",
      );
  }
}

/** Checks every month's files against its manifest, then recomputes every index level and volatility value of the bundles under dir. */
export function verifyBundles(dir: string): VerifyReport {
  const months = monthDirs(dir);
  const integrity: IntegrityReport = { filesChecked: 0, failures: [] };
  const index: IndexReport = {
    hours: 0,
    indices: 0,
    maxLevelDiff: "0",
    basesChecked: 0,
    maxBaseDiff: "0",
    fromHistory: 0,
    coarseHistory: 0,
    failures: [],
  };
  const volatility: VolReport = {
    computations: 0,
    series: 0,
    valuesChecked: 0,
    maxValueDiff: 0,
    gateDecisionsChecked: 0,
    gateMismatches: 0,
    identityUnchecked: 0,
    fromHistory: 0,
    coarseHistory: 0,
    attributionLegsChecked: 0,
    clocksChecked: 0,
    clockUnchecked: 0,
    counterfactualsChecked: 0,
    counterfactualUnchecked: 0,
    recordWindowsChecked: 0,
    recordUnchecked: 0,
    failures: [],
  };
  const tickers = new Set<string>();
  const seriesSeen = new Set<string>();
  const prevBySeries = new Map<string, Recomputed>();
  const clocks = new Map<string, ClockTrack>();
  const inceptions = new Map<string, InceptionConfig>();
  const recordPoints = new Map<string, Map<number, RecordPoint>>();
  const firstRow = months.length ? readCsv(months[0]!, "volatility_history.csv")[0] : undefined;
  const dirStart = firstRow ? Date.parse(`${firstRow.t!.slice(0, 7)}-01T00:00:00Z`) : 0;
  for (const m of months) verifyManifest(m, integrity);
  for (const m of months) {
    verifyIndexMonth(m, index, tickers);
    verifyVolMonth(m, volatility, prevBySeries, seriesSeen, clocks, dirStart, inceptions);
    verifyForecastRecord(m, volatility, recordPoints);
  }
  index.indices = tickers.size;
  volatility.series = seriesSeen.size;
  return { months: months.map((m) => path.basename(m)), integrity, index, volatility };
}

/** True when every file matches its manifest and every published value and gate decision recomputes. */
export function verified(r: VerifyReport): boolean {
  return (
    r.integrity.failures.length === 0 &&
    r.index.failures.length === 0 &&
    r.volatility.failures.length === 0 &&
    r.index.hours > 0 &&
    r.index.maxLevelDiff === "0.00000000"
  );
}
