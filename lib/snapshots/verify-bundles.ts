import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import Decimal from "decimal.js";
import { Dec } from "@/lib/engine/decimal";
import { devigMultiplicative } from "@/lib/engine/devig";
import {
  attributeLegs,
  type AttributionLegInput,
  type LegClock,
  type LegShape,
} from "@/lib/engine/volatility/attribution";
import { horizonFraction, varianceToResolution } from "@/lib/engine/volatility/diffusion-share";
import type { PartitionOrder } from "@/lib/engine/volatility/ordered";
import { CALENDAR_PRIOR, withCalendarPrior } from "@/lib/engine/volatility/prior";
import { round6 } from "@/lib/engine/volatility/round";
import {
  PTS2,
  devigScenarios,
  legShape,
  legTenorVariance,
  legVarianceAt,
  partitionTenorVariance,
  preparePartition,
  tenorEnvelope,
} from "@/lib/engine/volatility/tenor-variance";
import { addClockIncrement, estimateClock, publishedClock } from "@/lib/engine/volatility/clock";
import { forecastWindows, realizedMovePts, type RecordPoint } from "@/lib/engine/volatility/forecast-record";
import type {
  ClockBucket,
  ClockEstimate,
  Counterfactual,
  InceptionConfig,
  VolGates,
} from "@/lib/engine/volatility/types";

// Recomputes every published number of downloaded monthly bundles from the bundle files alone.
// Index levels: L_t = base_level * sum(w_i * p_i,t) / base_basket_value of the composition that
// priced t, in decimal arithmetic with 50 significant digits (multiply first), rounded to eight
// decimals ROUND_HALF_EVEN. Volatility: the engine's published formulas over the leg panel, and
// the gates decided here by the documented rules in exact decimal arithmetic (not by the engine's
// gate code). First of all, every file is checked against the month's manifest.json.

/** The arithmetic every index level uses: the engine's own decimal context. */
const D = Dec;
type Row = Record<string, string>;

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

function readCsv(dir: string, name: string): Row[] {
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

const key = (...parts: string[]) => parts.join("|");

/** Records of a CSV file (header excluded), as the manifest counts them. */
function csvRecords(content: Buffer): number {
  return (parse(content, { skip_empty_lines: true }) as unknown[]).length - 1;
}

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

function verifyIndexMonth(dir: string, report: IndexReport, tickers: Set<string>): void {
  const month = path.basename(dir);
  const fail = (file: string, ticker: string, t: string | null, what: string, published: string, recomputed: string) =>
    report.failures.push({ month, file, ticker, t, what, published, recomputed });
  const weights = new Map<string, Map<string, Decimal>>();
  for (const r of readCsv(dir, "target_weights.csv")) {
    const k = key(r.ticker!, r.composition_version!);
    if (!weights.has(k)) weights.set(k, new Map());
    weights.get(k)!.set(r.condition_id!, new D(r.target_weight!));
  }
  const comps = new Map<string, Array<{ version: string; at: number; baseLevel: Decimal; baseBasket: Decimal }>>();
  for (const r of readCsv(dir, "compositions.csv")) {
    if (!comps.has(r.ticker!)) comps.set(r.ticker!, []);
    comps.get(r.ticker!)!.push({
      version: r.composition_version!,
      at: Date.parse(r.effective_at!),
      baseLevel: new D(r.base_level!),
      baseBasket: new D(r.base_basket_value!),
    });
  }
  for (const list of comps.values()) list.sort((a, b) => a.at - b.at);
  const prices = new Map<string, Map<string, Decimal>>();
  for (const r of readCsv(dir, "constituent_prices.csv")) {
    const k = key(r.ticker!, r.t!);
    if (!prices.has(k)) prices.set(k, new Map());
    prices.get(k)!.set(r.condition_id!, new D(r.price!));
  }
  const basketOf = (ticker: string, version: string, t: string): Decimal | null => {
    const w = weights.get(key(ticker, version));
    const p = prices.get(key(ticker, t));
    if (w === undefined || p === undefined) return null;
    let sum = new D(0);
    for (const [cond, weight] of w) {
      const price = p.get(cond);
      if (price === undefined) return null;
      sum = sum.plus(weight.times(price));
    }
    return sum;
  };

  const unrounded = new Map<string, Decimal>();
  let maxDiff = new D(report.maxLevelDiff);
  const levels = readCsv(dir, "index_levels.csv");
  const firstHour = new Map<string, number>();
  for (const r of levels) {
    const ms = Date.parse(r.t!);
    if (!firstHour.has(r.ticker!) || ms < firstHour.get(r.ticker!)!) firstHour.set(r.ticker!, ms);
  }
  for (const r of levels) {
    tickers.add(r.ticker!);
    const ms = Date.parse(r.t!);
    const list = comps.get(r.ticker!) ?? [];
    // the composition in force before t prices t; at inception the first composition prices itself
    const pricing = [...list].reverse().find((c) => c.at < ms) ?? list.find((c) => c.at === ms);
    if (pricing === undefined) {
      fail(
        "index_levels.csv",
        r.ticker!,
        r.t!,
        "index_level",
        r.index_level!,
        "no composition in compositions.csv prices this hour",
      );
      continue;
    }
    if (r.pricing_composition_version && r.pricing_composition_version !== pricing.version) {
      fail(
        "index_levels.csv",
        r.ticker!,
        r.t!,
        "pricing_composition_version",
        r.pricing_composition_version,
        pricing.version,
      );
    }
    const basket = basketOf(r.ticker!, pricing.version, r.t!);
    if (basket === null) {
      fail(
        "index_levels.csv",
        r.ticker!,
        r.t!,
        "index_level",
        r.index_level!,
        "a constituent price or weight is missing",
      );
      continue;
    }
    const level = pricing.baseLevel.times(basket).div(pricing.baseBasket);
    unrounded.set(key(r.ticker!, r.t!), level);
    const rounded = level.toFixed(8, Decimal.ROUND_HALF_EVEN);
    const diff = new D(rounded).minus(new D(r.index_level!)).abs();
    if (diff.greaterThan(maxDiff)) maxDiff = diff;
    if (!diff.isZero()) fail("index_levels.csv", r.ticker!, r.t!, "index_level", r.index_level!, rounded);
    report.hours += 1;
    if (r.basis !== undefined && r.basis !== "live") report.fromHistory += 1;
  }
  report.maxLevelDiff = maxDiff.toFixed(8);

  // every composition base starting inside this month: inception (100 and its own basket) or the chain
  let maxBase = new D(report.maxBaseDiff);
  for (const [ticker, list] of comps) {
    for (const c of list) {
      const t = levels.find((r) => r.ticker === ticker && Date.parse(r.t!) === c.at)?.t;
      if (t === undefined) continue;
      const basket = basketOf(ticker, c.version, t);
      const inception = c.at === firstHour.get(ticker) && list[0] === c && !list.some((o) => o.at < c.at);
      const level = inception ? new D(100) : unrounded.get(key(ticker, t));
      if (basket === null || level === undefined) {
        fail(
          "compositions.csv",
          ticker,
          t,
          `${c.version} base`,
          `${c.baseLevel} / ${c.baseBasket}`,
          "cannot be recomputed from this month's files",
        );
        continue;
      }
      const diff = Decimal.max(basket.minus(c.baseBasket).abs(), level.minus(c.baseLevel).abs());
      if (diff.greaterThan(maxBase)) maxBase = diff;
      if (!diff.isZero())
        fail(
          "compositions.csv",
          ticker,
          t,
          `${c.version} base_level / base_basket_value`,
          `${c.baseLevel} / ${c.baseBasket}`,
          `${level} / ${basket}`,
        );
      report.basesChecked += 1;
    }
  }
  report.maxBaseDiff = maxBase.toString();
}

interface LegRow {
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
}

interface Recomputed {
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

type ClockJson = Record<
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

/** The verifier's own reading of the documented gates, in exact decimal arithmetic. */
interface GateFacts {
  gates: VolGates;
  t: Date;
  legs: readonly LegRow[];
  /** per leg of `legs`: largest headline move to its bid or ask (points); share of the budget */
  impactPts: readonly number[];
  budgetShare: readonly number[];
  devigGap: number | null;
  pythagorean: ReadonlyArray<{ pts: number; legPts: readonly number[] }>;
  identity: { deltaPts2: number; parts: readonly number[] } | null;
}

/** The methodology page's gate table, rule by rule; returns the status and the gates that fail. */
export function decideGates(f: GateFacts): { status: "ok" | "flagged" | "suspended"; names: string[] } {
  const g = f.gates;
  const d = (v: number | string) => new D(v);
  const names = new Set<string>();
  const failing = new Set<number>();
  f.legs.forEach((l, i) => {
    const failLeg = (gate: string) => {
      names.add(gate);
      failing.add(i);
    };
    if (l.observedAt === null) return failLeg("leg_missing");
    if (l.resolved) return;
    if (d(f.t.getTime() - l.observedAt.getTime()).greaterThan(d(g.snapshotMaxAgeSeconds).times(1000)))
      failLeg("snapshot_age");
    if (!l.fromHistory && d(l.cells.depthUsd).lessThan(d(g.depthFloorUsd))) failLeg("depth_floor");
    const mid = d(l.cells.mid);
    if (!mid.greaterThan(0) || d(l.cells.ask).minus(d(l.cells.bid)).div(mid).greaterThan(d(g.spreadToMidMax)))
      failLeg("spread_to_mid");
    if (d(f.impactPts[i] as number).greaterThan(d(g.impactBudgetPts))) failLeg("impact");
  });
  const quoted = f.legs.filter((l) => l.observedAt !== null);
  const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(d(x)), d(0));
  const sumMid = sum(quoted.map((l) => l.cells.mid));
  if (sumMid.greaterThan(d(g.overroundFlagHi))) names.add("overround");
  else if (sumMid.lessThan(d(g.overroundFlagLo))) names.add("underround");
  const live = quoted.filter((l) => !l.resolved);
  const times = live.map((l) => (l.observedAt as Date).getTime());
  if (
    times.length > 1 &&
    d(Math.max(...times) - Math.min(...times)).greaterThan(d(g.snapshotMaxSkewSeconds).times(1000))
  )
    names.add("snapshot_skew");
  const tolerance = Decimal.max(d(g.arbToleranceMin), d(g.arbToleranceTicks).times("0.01"));
  if (
    live.length > 1 &&
    live.length === f.legs.filter((l) => !l.resolved).length &&
    live.every((l) => !d(l.cells.depthUsd).lessThan(d(g.arbMinDepthUsd)))
  ) {
    const asks = sum(live.map((l) => l.cells.ask));
    const bids = sum(live.map((l) => l.cells.bid));
    if (asks.lessThan(d(1).minus(tolerance)) || bids.greaterThan(d(1).plus(tolerance))) names.add("arbitrage");
  }
  if (f.devigGap !== null && d(f.devigGap).greaterThan(d(g.devigTolerance))) names.add("devig");
  for (const p of f.pythagorean) {
    const gap = p.legPts.reduce((s, x) => s.minus(d(x).pow(2)), d(p.pts).pow(2)).abs();
    if (gap.greaterThan(d(g.pythagoreanTolerancePts2))) names.add("pythagorean");
  }
  if (f.identity !== null) {
    const residual = f.identity.parts.reduce((s, x) => s.minus(d(x)), d(f.identity.deltaPts2)).abs();
    if (residual.greaterThan(d(g.identityTolerance))) names.add("identity");
  }
  const missing = f.legs.some((l) => l.observedAt === null);
  const failingShare = [...failing].reduce((s, i) => s.plus(d(f.budgetShare[i] as number)), d(0));
  let status: "ok" | "flagged" | "suspended" = names.size > 0 ? "flagged" : "ok";
  if (missing || failingShare.greaterThan(d(g.suspendFailingBudgetShare))) {
    status = "suspended";
    names.add("failing_budget_share");
  }
  return { status, names: [...names].sort() };
}

/** A series' realized-variance clock rebuilt from the published hourly increments. */
interface ClockTrack {
  buckets: ClockBucket[];
  /** every increment from this instant on is known (-Infinity: the series began inside DIR; +Infinity: a month without increments) */
  knownFrom: number;
}

const MS_DAY = 86_400_000;

/**
 * The tenor-variance rules of a computation: from vol-2.0 on (its methodology_version), the
 * series' partition order (volatility_series.csv `partition_order`), the one-tick floor and the
 * calendar clock's prior speed; before, every leg as its own binary, no floor, calendar speed 1.
 */
interface VolRules {
  order: PartitionOrder;
  v2: boolean;
}

export function volRulesOf(methodologyVersion: string | undefined, partitionOrder: string | undefined): VolRules {
  const major = Number(/^vol-(\d+)\./.exec(methodologyVersion ?? "")?.[1] ?? "1");
  const v2 = major >= 2;
  return { order: v2 && partitionOrder === "ordered" ? "ordered" : "unordered", v2 };
}

/**
 * The counterfactual by its documented rule: the inception legs quoted at t (from the leg panel, or
 * for those no longer in force from volatility_counterfactual_legs.csv), multiplicative de-vig, the
 * calendar clock, the inception tenors. False when an inception leg is in neither file (bundles before schemaVersion 6).
 */
function checkCounterfactual(
  published: Counterfactual,
  config: InceptionConfig,
  legs: readonly LegRow[],
  t: Date,
  check: (published: number, recomputed: number, what: string) => void,
  rules: VolRules,
): boolean {
  const byId = new Map(legs.map((l) => [l.conditionId, l]));
  if (config.legs.some((id) => !byId.has(id))) return false;
  const quoted = config.legs.map((id) => byId.get(id) as LegRow).filter((l) => l.observedAt !== null);
  const p = devigMultiplicative(quoted.map((l) => l.mid)) ?? quoted.map(() => 0);
  const part = preparePartition(
    p,
    quoted.map((l) => (l.settlementAt === null ? null : (l.settlementAt.getTime() - t.getTime()) / MS_DAY)),
    rules.order,
    rules.v2,
  );
  const calendar = rules.v2 ? CALENDAR_PRIOR[rules.order].speed : 1;
  for (const tau of config.tenorsDays) {
    const v = partitionTenorVariance(part, tau, calendar, "diffusion");
    const value = published.tenors[String(tau)];
    check(value?.pts ?? Number.NaN, 100 * Math.sqrt(v), `counterfactual ${tau}d pts`);
    check(value?.share ?? Number.NaN, part.budget > 0 ? v / part.budget : 0, `counterfactual ${tau}d share`);
  }
  check(
    published.headlinePts,
    100 * Math.sqrt(partitionTenorVariance(part, config.headlineTenorDays, calendar, "diffusion")),
    "counterfactual headlinePts",
  );
  check(published.rPts, 100 * Math.sqrt(part.budget), "counterfactual rPts");
  return true;
}

function verifyVolMonth(
  dir: string,
  report: VolReport,
  prevBySeries: Map<string, Recomputed>,
  seriesSeen: Set<string>,
  clocks: Map<string, ClockTrack>,
  dirStart: number,
  inceptions: Map<string, InceptionConfig>,
): void {
  const month = path.basename(dir);
  const manifestFile = path.join(dir, "manifest.json");
  const schemaVersion = fs.existsSync(manifestFile)
    ? Number((JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { schemaVersion?: unknown }).schemaVersion)
    : 0;
  const hasIncrements = schemaVersion >= 3;
  const history = readCsv(dir, "volatility_history.csv");
  const monthStart = history[0] ? Date.parse(`${history[0].t!.slice(0, 7)}-01T00:00:00Z`) : 0;
  for (const track of clocks.values()) {
    if (!hasIncrements) track.knownFrom = Number.POSITIVE_INFINITY;
    else if (track.knownFrom === Number.POSITIVE_INFINITY) track.knownFrom = monthStart;
  }
  const attributionOf = new Map<string, Row[]>();
  for (const r of readCsv(dir, "volatility_attribution.csv")) {
    const k = key(r.ticker!, r.t!);
    if (!attributionOf.has(k)) attributionOf.set(k, []);
    attributionOf.get(k)!.push(r);
  }
  const defs = new Map(
    readCsv(dir, "volatility_series.csv").map((r) => [
      r.ticker!,
      {
        H: Number(r.headline_tenor_days),
        tenors: JSON.parse(r.tenors_days_json!) as number[],
        gates: JSON.parse(r.gates_json!) as VolGates,
        order: r.partition_order,
      },
    ]),
  );
  // each series' frozen inception configuration: its sha256 is the counterfactual's anchorFingerprint
  for (const r of readCsv(dir, "volatility_inception.csv")) {
    const sha = crypto.createHash("sha256").update(r.config_json!, "utf8").digest("hex");
    if (sha !== r.anchor_fingerprint) {
      report.failures.push({
        month,
        file: "volatility_inception.csv",
        ticker: r.ticker!,
        t: r.anchor_at!,
        what: "anchor_fingerprint",
        published: r.anchor_fingerprint!,
        recomputed: sha,
      });
      continue;
    }
    inceptions.set(key(r.ticker!, sha), JSON.parse(r.config_json!) as InceptionConfig);
  }
  const legRow = (r: Row): LegRow => ({
    conditionId: r.condition_id!,
    legKey: r.leg_key!,
    label: r.label!,
    gridOrder: r.grid_order === undefined ? -1 : Number(r.grid_order),
    bid: Number(r.bid),
    ask: Number(r.ask),
    mid: Number(r.mid),
    depthUsd: Number(r.depth_usd),
    cells: { bid: r.bid!, ask: r.ask!, mid: r.mid!, depthUsd: r.depth_usd! },
    fromHistory: r.source === "history",
    observedAt: r.observed_at ? new Date(r.observed_at) : null,
    settlementAt: r.settlement_at ? new Date(r.settlement_at) : null,
    resolved: r.resolved === "true",
    p: r.p === undefined || r.p === "" ? null : Number(r.p),
    tenorPts: r.tenor_pts_json ? (JSON.parse(r.tenor_pts_json) as Record<string, number>) : null,
  });
  const grouped = (file: string) => {
    const out = new Map<string, LegRow[]>();
    for (const r of readCsv(dir, file)) {
      const k = key(r.ticker!, r.t!);
      if (!out.has(k)) out.set(k, []);
      out.get(k)!.push(legRow(r));
    }
    return out;
  };
  const legsOf = grouped("volatility_legs.csv");
  // the inception legs no longer in force at t (schemaVersion 6): the rest of the counterfactual's inputs
  const departedOf = grouped("volatility_counterfactual_legs.csv");
  let ticker = "";
  let t0 = "";
  let file = "volatility_history.csv";
  const fail = (what: string, published: string | number, recomputed: string | number) =>
    report.failures.push({
      month,
      file,
      ticker,
      t: t0,
      what,
      published: String(published),
      recomputed: String(recomputed),
    });
  const check = (published: number, recomputed: number, what: string) => {
    const diff = Math.abs(published - round6(recomputed));
    report.valuesChecked += 1;
    if (diff > report.maxValueDiff) report.maxValueDiff = diff;
    if (diff > VOL_ROUNDING) fail(what, published, round6(recomputed));
  };

  for (const r of history) {
    ticker = r.ticker!;
    t0 = r.t!;
    file = "volatility_history.csv";
    const def = defs.get(r.ticker!);
    const legs = (legsOf.get(key(r.ticker!, r.t!)) ?? []).sort((a, b) => a.gridOrder - b.gridOrder);
    const clock = JSON.parse(r.clock_json || "null") as ClockJson | null;
    if (def === undefined || legs.length === 0 || clock === null) {
      fail("computation", r.headline_pts ?? "", "series definition, leg panel or clock missing");
      continue;
    }
    seriesSeen.add(r.ticker!);
    report.computations += 1;
    const rules = volRulesOf(r.methodology_version, def.order);
    if (r.basis !== undefined && r.basis !== "live") report.fromHistory += 1;
    const t = new Date(r.t!);

    // the clock: rebuilt from the hourly increments published before t, per tenor
    let track = clocks.get(r.ticker!);
    if (track === undefined) {
      // a series whose first computation in DIR is not at its first hour may have history before DIR
      track = {
        buckets: [],
        knownFrom: !hasIncrements
          ? Number.POSITIVE_INFINITY
          : t.getTime() > dirStart
            ? Number.NEGATIVE_INFINITY
            : dirStart,
      };
      clocks.set(r.ticker!, track);
    }
    for (const [tau, published] of Object.entries(clock)) {
      const windowDays = Math.max(30, Math.ceil(Number(tau)));
      const windowStart = Date.parse(
        `${new Date(t.getTime() - (windowDays - 1) * MS_DAY).toISOString().slice(0, 10)}T00:00:00Z`,
      );
      if (windowStart < track.knownFrom) {
        report.clockUnchecked += 1;
        continue;
      }
      // the estimate (the calendar tier at its prior under vol-2.0) rounded as the methodology states (six decimals), then compared digit for digit
      const raw = estimateClock(track.buckets, t, Number(tau));
      const c = publishedClock(rules.v2 ? withCalendarPrior(raw, rules.order) : raw);
      report.clocksChecked += 1;
      for (const field of ["tier", "speed", "speedLo", "speedHi", "windowDays", "coverage"] as const) {
        if (c[field] !== published[field]) fail(`clock ${tau}d ${field}`, published[field], c[field]);
      }
    }
    if (hasIncrements && r.clock_increment_realized && r.clock_increment_predicted) {
      track.buckets = addClockIncrement(
        track.buckets,
        t,
        Number(r.clock_increment_realized),
        Number(r.clock_increment_predicted),
      );
    }
    const live = legs.filter((l) => l.observedAt !== null);
    const mids = live.map((l) => l.mid);
    const p = devigMultiplicative(mids) ?? [];
    const days = live.map((l) =>
      l.settlementAt === null ? null : (l.settlementAt.getTime() - t.getTime()) / 86_400_000,
    );
    const part = preparePartition(p, days, rules.order, rules.v2);
    const budget = part.budget;
    const scenarios = devigScenarios({ mid: mids, bid: live.map((l) => l.bid), ask: live.map((l) => l.ask) }).map((s) =>
      preparePartition(s.p, days, rules.order, rules.v2),
    );
    const clockOf = (tau: number): ClockEstimate => {
      const c = clock[String(tau)];
      if (c === undefined) throw new Error(`${ticker} ${t0}: no clock for ${tau} days`);
      return c;
    };
    file = "volatility_legs.csv";
    live.forEach((l, j) => {
      if (l.p !== null && Math.abs(l.p - (p[j] as number)) > 1e-12) fail(`leg ${l.legKey} p`, l.p, p[j] as number);
    });
    file = "volatility_history.csv";

    const tenors = JSON.parse(r.tenors_json!) as Record<
      string,
      { pts: number; share: number; share_ci: [number, number] | null }
    >;
    const ptsOf = (tau: number) => 100 * Math.sqrt(partitionTenorVariance(part, tau, clockOf(tau).speed, "diffusion"));
    const legPts: Record<string, number[]> = {};
    for (const tau of def.tenors) {
      const speed = clockOf(tau).speed;
      const legVar = p.map((_, j) => legTenorVariance(part, j, tau, speed, "diffusion"));
      legPts[String(tau)] = legVar.map((v) => round6(100 * Math.sqrt(v)));
      const v = legVar.reduce((s, x) => s + x, 0);
      const published = tenors[String(tau)];
      if (published === undefined) continue;
      check(published.pts, 100 * Math.sqrt(v), `${tau}d pts`);
      const share = budget > 0 ? v / budget : 0;
      check(published.share, share, `${tau}d share`);
      if (published.share_ci !== null) {
        const env = tenorEnvelope(scenarios, tau, clockOf(tau));
        check(published.share_ci[0], Math.min(env.shareLo, share), `${tau}d share_ci lo`);
        check(published.share_ci[1], Math.max(env.shareHi, share), `${tau}d share_ci hi`);
      }
    }
    // the legs' published tenor points (the leg panel), checked and then used by the Pythagorean gate
    file = "volatility_legs.csv";
    live.forEach((l, j) => {
      if (l.tenorPts === null) return;
      for (const tau of def.tenors) {
        const published = l.tenorPts[String(tau)];
        if (published !== undefined)
          check(published, legPts[String(tau)]?.[j] as number, `leg ${l.legKey} ${tau}d pts`);
      }
    });
    file = "volatility_history.csv";
    const headline = ptsOf(def.H);
    check(Number(r.headline_pts), headline, "headline_pts");
    const env = tenorEnvelope(scenarios, def.H, clockOf(def.H));
    check(Number(r.band_lo_pts), Math.min(env.ptsLo, headline), "band_lo_pts");
    check(Number(r.band_hi_pts), Math.max(env.ptsHi, headline), "band_hi_pts");
    check(Number(r.fbv_r_pts), 100 * Math.sqrt(budget), "fbv_r_pts");

    // gates: the documented rules over the panel's quotes, in exact decimal
    const speedH = clockOf(def.H).speed;
    const liveIndex = new Map(live.map((l, j) => [l.conditionId, j]));
    const impact = live.map((l, j) => {
      if (l.resolved) return 0;
      return Math.max(
        ...[l.bid, l.ask].map((side) => {
          const moved = devigMultiplicative(mids.map((m, i) => (i === j ? side : m)));
          return moved === null
            ? 0
            : Math.abs(
                100 *
                  Math.sqrt(
                    partitionTenorVariance(
                      preparePartition(moved, days, rules.order, rules.v2),
                      def.H,
                      speedH,
                      "diffusion",
                    ),
                  ) -
                  headline,
              );
        }),
      );
    });
    const scen = devigScenarios({ mid: mids, bid: live.map((l) => l.bid), ask: live.map((l) => l.ask) });
    const powerP = scen.find((s) => s.side === "mid" && s.method === "power")?.p ?? null;
    const devigGap = powerP === null ? null : Math.max(...p.map((pj, j) => Math.abs(pj - (powerP[j] as number))));
    const pythagorean = def.tenors.map((tau) => ({
      pts: tenors[String(tau)]?.pts ?? 0,
      legPts: legs.map((l) => {
        const j = liveIndex.get(l.conditionId);
        return l.tenorPts?.[String(tau)] ?? (j === undefined ? 0 : (legPts[String(tau)]?.[j] as number));
      }),
    }));
    const before = prevBySeries.get(r.ticker!);
    // the delta is measured from the computation named in attr_delta_from (published or withheld)
    const prev = r.attr_delta_from && before?.t === r.attr_delta_from ? before : undefined;
    let identity: GateFacts["identity"] = null;
    if (prev !== undefined) {
      const prevById = new Map(prev.legs.map((l) => [l.conditionId, l]));
      const ids = [...new Set([...live.map((l) => l.conditionId), ...prev.legs.map((l) => l.conditionId)])];
      const inputs: AttributionLegInput[] = ids.map((id) => {
        const before = prevById.get(id);
        const j = liveIndex.get(id);
        const nowClock: LegClock | undefined = j === undefined ? undefined : { days: days[j] ?? null, speed: speedH };
        const prevClock: LegClock | undefined =
          before === undefined ? undefined : { days: before.days, speed: prev.speedH };
        return {
          legKey: id,
          label: id,
          gridOrder: 0,
          p0: before?.pv ?? 0,
          p1: j === undefined ? 0 : (part.p[j] as number),
          clock0: prevClock ?? (nowClock as LegClock),
          clock1: nowClock ?? (prevClock as LegClock),
          shape0: before?.shape,
          shape1: j === undefined ? undefined : legShape(part, j),
        };
      });
      const f = (pp: number, c: LegClock, shape?: LegShape) =>
        PTS2 * legVarianceAt(pp, shape, c.days === null ? 1 : horizonFraction(def.H, c.days, c.speed));
      const splits = attributeLegs(inputs, f);
      const deltaPts2 = headline * headline - prev.headlinePts * prev.headlinePts;
      identity = {
        deltaPts2: round6(deltaPts2),
        parts: splits.flatMap((x) => [round6(x.deltaPrice), round6(x.deltaClock)]),
      };
      check(Number(r.attr_delta_headline_pts), headline - prev.headlinePts, "attr_delta_headline_pts");
      if (r.attr_delta_pts2 !== undefined && r.attr_delta_pts2 !== "")
        check(Number(r.attr_delta_pts2), deltaPts2, "attr_delta_pts2");
      // per-leg attribution (volatility_attribution.csv), by leg key
      const legKeyOf = (id: string) =>
        live.find((l) => l.conditionId === id)?.legKey ?? prev.legs.find((l) => l.conditionId === id)?.legKey ?? id;
      const published = attributionOf.get(key(r.ticker!, r.t!));
      if (published !== undefined) {
        file = "volatility_attribution.csv";
        const byKey = new Map(published.map((a) => [a.leg_key!, a]));
        for (const x of splits) {
          const a = byKey.get(legKeyOf(x.legKey));
          report.attributionLegsChecked += 1;
          if (a === undefined) {
            fail(
              `leg ${legKeyOf(x.legKey)} attribution`,
              "no row",
              `${round6(x.deltaPrice)} / ${round6(x.deltaClock)}`,
            );
            continue;
          }
          check(Number(a.delta_price), x.deltaPrice, `leg ${a.leg_key} delta_price`);
          check(Number(a.delta_clock), x.deltaClock, `leg ${a.leg_key} delta_clock`);
          check(Number(a.delta), x.delta, `leg ${a.leg_key} delta`);
        }
        if (published.length !== splits.length) fail("attribution legs", published.length, splits.length);
        identity = {
          deltaPts2: Number(r.attr_delta_pts2),
          parts: published.flatMap((a) => [Number(a.delta_price), Number(a.delta_clock)]),
        };
        file = "volatility_history.csv";
      }
    } else if (r.attr_delta_from) {
      report.identityUnchecked += 1;
    }
    const counterfactual = JSON.parse(r.counterfactual_json || "null") as Counterfactual | null;
    const departed = departedOf.get(key(r.ticker!, r.t!)) ?? [];
    if (counterfactual !== null) {
      const config = inceptions.get(key(r.ticker!, counterfactual.anchorFingerprint));
      file = "volatility_counterfactual_legs.csv";
      const inPanel = new Set(legs.map((l) => l.conditionId));
      for (const l of departed) {
        if (inPanel.has(l.conditionId))
          fail(`leg ${l.legKey}`, "an inception leg no longer in force", "in force (a row of volatility_legs.csv)");
        else if (config !== undefined && !config.legs.includes(l.conditionId))
          fail(
            `leg ${l.legKey}`,
            "an inception leg no longer in force",
            "not an inception leg (volatility_inception.csv)",
          );
      }
      file = "volatility_history.csv";
      if (
        config !== undefined &&
        checkCounterfactual(counterfactual, config, [...departed, ...legs], t, check, rules)
      ) {
        report.counterfactualsChecked += 1;
        if (counterfactual.anchorAt !== config.anchorAt)
          fail("counterfactual anchorAt", counterfactual.anchorAt, config.anchorAt);
        if (counterfactual.clockVersion !== config.clockVersion)
          fail("counterfactual clockVersion", counterfactual.clockVersion, config.clockVersion);
      } else report.counterfactualUnchecked += 1;
    }
    const gates = decideGates({
      gates: def.gates,
      t,
      legs,
      impactPts: legs.map((l) => {
        const j = liveIndex.get(l.conditionId);
        return j === undefined ? 0 : (impact[j] as number);
      }),
      budgetShare: legs.map((l) => {
        const j = liveIndex.get(l.conditionId);
        return j === undefined || budget <= 0 ? 0 : varianceToResolution(part.p[j] as number) / budget;
      }),
      devigGap,
      pythagorean,
      identity,
    });
    const publishedNames = [...new Set(JSON.parse(r.gate_names_json || "[]") as string[])].sort();
    const comparable = prev !== undefined || !r.attr_delta_from;
    if (comparable) {
      report.gateDecisionsChecked += 1;
      if (gates.status !== r.status || gates.names.join() !== publishedNames.join()) {
        report.gateMismatches += 1;
        fail(
          "status [gates]",
          `${r.status} [${publishedNames.join(" ")}]`,
          `${gates.status} [${gates.names.join(" ")}]`,
        );
      }
    }
    prevBySeries.set(r.ticker!, {
      t: r.t!,
      headlinePts: headline,
      speedH,
      legs: live.map((l, j) => ({
        conditionId: l.conditionId,
        legKey: l.legKey,
        label: l.label,
        gridOrder: l.gridOrder,
        p: p[j] as number,
        pv: part.p[j] as number,
        shape: legShape(part, j),
        days: days[j] ?? null,
      })),
    });
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
