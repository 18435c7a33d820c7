import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { Dec } from "@/lib/engine/decimal";
import type { LegShape } from "@/lib/engine/volatility/attribution";
import type { PartitionOrder } from "@/lib/engine/volatility/ordered";
import type { ClockBucket } from "@/lib/engine/volatility/types";

// What the bundle verifiers share (lib/snapshots/verify-bundles.ts): the report, reading the files, the rows of the leg panel.

/** The arithmetic every index level uses: the engine's own decimal context. */
export const D = Dec;
export type Row = Record<string, string>;

/** One published number (or file) that does not check: where it is, what was published, what was recomputed. */
export interface Failure {
  /** month folder (YYYY-MM) or the folder's name */
  month: string;
  file: string;
  ticker: string | null;
  /** the row's hour, as printed in the file */
  t: string | null;
  what: string;
  published: string;
  recomputed: string;
}

export function formatFailure(f: Failure): string {
  const where = [f.month, f.file, f.ticker, f.t].filter((x) => x !== null).join(" ");
  return `${where} ${f.what}: published ${f.published}, recomputed ${f.recomputed}`;
}

export interface IntegrityReport {
  /** files checked against manifest.json (sha256, bytes, rows) */
  filesChecked: number;
  failures: Failure[];
}

export interface IndexReport {
  hours: number;
  indices: number;
  /** largest |recomputed - published| over every hourly level, at eight decimals */
  maxLevelDiff: string;
  /** composition bases checked against the recomputed chain (inception basket, level and basket at each link) */
  basesChecked: number;
  maxBaseDiff: string;
  /** of `hours`, those back-calculated before their index's launch or filled from the venue's history (`basis`, schemaVersion 4; recomputed alike) */
  fromHistory: number;
  /** of `hours`, those priced from venue history coarser than hourly (`history_fidelity_minutes`, e.g. 720: 12-hour points) */
  coarseHistory: number;
  /** every level or base that does not recompute, and rows that cannot be recomputed */
  failures: Failure[];
}

export interface VolReport {
  computations: number;
  series: number;
  /** published numbers compared (tenor pts and shares, share intervals, headline, band, fbvRPts) */
  valuesChecked: number;
  /** largest |recomputed - published| over those values, in points (or share units) */
  maxValueDiff: number;
  gateDecisionsChecked: number;
  gateMismatches: number;
  /** computations whose identity gate could not be recomputed (previous computation not in DIR) */
  identityUnchecked: number;
  /** per-leg attribution parts (volatility_attribution.csv) recomputed */
  attributionLegsChecked: number;
  /** clock estimates (speed, bounds, coverage, tier per tenor) recomputed from the published hourly increments */
  clocksChecked: number;
  /** computations whose clock window reaches before the bundles in DIR (or into bundles without increments) */
  clockUnchecked: number;
  /** counterfactuals recomputed over the inception legs (volatility_inception.csv, schemaVersion 5) */
  counterfactualsChecked: number;
  /** counterfactuals whose inception configuration is not in DIR, or one of whose inception legs is in neither the leg panel nor volatility_counterfactual_legs.csv (bundles before schemaVersion 6) */
  counterfactualUnchecked: number;
  /** forecast record windows (volatility_forecast_record.csv, schemaVersion 7) recomputed from the history and leg panel */
  recordWindowsChecked: number;
  /** forecast record windows whose start is before the bundles in DIR */
  recordUnchecked: number;
  /** of `computations`, those back-calculated or filled from the venue's history (recomputed alike) */
  fromHistory: number;
  /** of `computations`, those whose legs were priced from venue history coarser than hourly (`history_fidelity_minutes`) */
  coarseHistory: number;
  failures: Failure[];
}

export interface VerifyReport {
  months: string[];
  integrity: IntegrityReport;
  index: IndexReport;
  volatility: VolReport;
}

/** Half a unit of the sixth decimal, plus float slack: values published with six decimals. */
export const VOL_ROUNDING = 5e-7 + 1e-9;

export function readCsv(dir: string, name: string): Row[] {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) return [];
  return parse(fs.readFileSync(file), { columns: true, skip_empty_lines: true }) as Row[];
}

/** Month folders (YYYY-MM) under dir in order, or dir itself when it holds the CSV files. */
export function monthDirs(dir: string): string[] {
  if (fs.existsSync(path.join(dir, "index_levels.csv"))) return [dir];
  return fs
    .readdirSync(dir)
    .filter((n) => /^\d{4}-\d{2}$/.test(n) && fs.statSync(path.join(dir, n)).isDirectory())
    .sort()
    .map((n) => path.join(dir, n));
}

export const key = (...parts: string[]) => parts.join("|");

/** Records of a CSV file (header excluded), as the manifest counts them. */
export function csvRecords(content: Buffer): number {
  return (parse(content, { skip_empty_lines: true }) as unknown[]).length - 1;
}

/** Each file named in the month's manifest.json: present, and its sha256, size and row count as listed. */
export interface LegRow {
  conditionId: string;
  legKey: string;
  label: string;
  gridOrder: number;
  bid: number;
  ask: number;
  mid: number;
  depthUsd: number;
  /** the panel's cells as printed: the gates read these as exact decimals */
  cells: { bid: string; ask: string; mid: string; depthUsd: string };
  /** the quote came from the venue's history (no book: the depth floor does not apply) */
  fromHistory: boolean;
  observedAt: Date | null;
  settlementAt: Date | null;
  resolved: boolean;
  p: number | null;
  /** published per-tenor points of the leg (empty in bundles that predate the column) */
  tenorPts: Record<string, number> | null;
  /** `history_fidelity_minutes` as printed: empty for a book or hourly history; undefined in bundles that predate the column (60-minute or live) */
  historyFidelity?: string;
}

export interface Recomputed {
  t: string;
  headlinePts: number;
  speedH: number;
  /** p: de-vigged; pv: as the variances used it (the floor applied); shape: an ordered leg's thresholds */
  legs: Array<{
    conditionId: string;
    legKey: string;
    label: string;
    gridOrder: number;
    p: number;
    pv: number;
    shape: LegShape | undefined;
    days: number | null;
  }>;
}

export type ClockJson = Record<
  string,
  {
    tier: "budget-implied" | "historical-clock";
    speed: number;
    speedLo: number;
    speedHi: number;
    windowDays: number;
    coverage: number;
  }
>;

/** A series' realized-variance clock rebuilt from the published hourly increments. */
export interface ClockTrack {
  buckets: ClockBucket[];
  /** every increment from this instant on is known (-Infinity: the series began inside DIR; +Infinity: a month without increments) */
  knownFrom: number;
}

export const MS_DAY = 86_400_000;

/**
 * The tenor-variance rules of a computation: from vol-2.0 on (its methodology_version), the
 * series' partition order (volatility_series.csv `partition_order`), the one-tick floor and the
 * calendar clock's prior speed; before, every leg as its own binary, no floor, calendar speed 1.
 */
export interface VolRules {
  order: PartitionOrder;
  v2: boolean;
}

export function volRulesOf(methodologyVersion: string | undefined, partitionOrder: string | undefined): VolRules {
  const major = Number(/^vol-(\d+)\./.exec(methodologyVersion ?? "")?.[1] ?? "1");
  const v2 = major >= 2;
  return { order: v2 && partitionOrder === "ordered" ? "ordered" : "unordered", v2 };
}
