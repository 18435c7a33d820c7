import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import Decimal from "decimal.js";
import { devigMultiplicative } from "@/lib/engine/devig";
import { attributeLegs, type AttributionLegInput, type LegClock } from "@/lib/engine/volatility/attribution";
import { diffusionVariance, horizonFraction, varianceToResolution } from "@/lib/engine/volatility/diffusion-share";
import { evaluateGates, type GateLeg } from "@/lib/engine/volatility/gates";
import { round6 } from "@/lib/engine/volatility/round";
import {
  PTS2,
  devigScenarios,
  legTenorVariance,
  partitionTenorVariance,
  preparePartition,
  tenorEnvelope,
} from "@/lib/engine/volatility/tenor-variance";
import type { ClockEstimate } from "@/lib/engine/volatility/clock";
import type { VolGates } from "@/lib/engine/volatility/types";

// Recomputes every published number of downloaded monthly bundles from the bundle files alone.
// Index levels: L_t = base_level * sum(w_i * p_i,t) / base_basket_value of the composition that
// priced t, in decimal arithmetic with 50 significant digits (multiply first), rounded to eight
// decimals ROUND_HALF_EVEN. Volatility: the engine's published formulas over the leg panel.

/** The arithmetic every index level uses (the same context as the engine). */
const D = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });
type Row = Record<string, string>;

export interface IndexReport {
  hours: number;
  indices: number;
  /** largest |recomputed - published| over every hourly level, at eight decimals */
  maxLevelDiff: string;
  /** composition bases checked against the recomputed chain (inception basket, level and basket at each link) */
  basesChecked: number;
  maxBaseDiff: string;
  /** of `hours`, those back-calculated before their index's launch or filled from the venue's history (recomputed alike) */
  fromHistory: number;
  problems: string[];
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
  /** of `computations`, those back-calculated or filled from the venue's history (recomputed alike) */
  fromHistory: number;
  problems: string[];
}

export interface VerifyReport {
  months: string[];
  index: IndexReport;
  volatility: VolReport;
}

/** What a value rests on (the `basis` column, bundles from schemaVersion 3): every kind is recomputed the same way. */
const BASES = new Set(["live", "back-calculated", "history-filled"]);
function countBasis(r: Row, where: string, problems: string[]): number {
  if (r.basis === undefined) return 0;
  if (!BASES.has(r.basis)) problems.push(`${where}: basis ${JSON.stringify(r.basis)} is none of ${[...BASES].join(", ")}`);
  return r.basis === "live" ? 0 : 1;
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

function verifyIndexMonth(dir: string, report: IndexReport, tickers: Set<string>): void {
  const weights = new Map<string, Map<string, Decimal>>();
  for (const r of readCsv(dir, "target_weights.csv")) {
    const k = key(r.ticker!, r.composition_version!);
    if (!weights.has(k)) weights.set(k, new Map());
    weights.get(k)!.set(r.condition_id!, new D(r.target_weight!));
  }
  const comps = new Map<string, Array<{ version: string; at: number; baseLevel: Decimal; baseBasket: Decimal }>>();
  for (const r of readCsv(dir, "compositions.csv")) {
    if (!comps.has(r.ticker!)) comps.set(r.ticker!, []);
    comps.get(r.ticker!)!.push({ version: r.composition_version!, at: Date.parse(r.effective_at!), baseLevel: new D(r.base_level!), baseBasket: new D(r.base_basket_value!) });
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
      report.problems.push(`${r.ticker} ${r.t}: no composition in compositions.csv prices this hour`);
      continue;
    }
    if (r.pricing_composition_version && r.pricing_composition_version !== pricing.version) {
      report.problems.push(`${r.ticker} ${r.t}: priced by ${pricing.version}, file says ${r.pricing_composition_version}`);
    }
    const basket = basketOf(r.ticker!, pricing.version, r.t!);
    if (basket === null) {
      report.problems.push(`${r.ticker} ${r.t}: a constituent price or weight is missing`);
      continue;
    }
    const level = pricing.baseLevel.times(basket).div(pricing.baseBasket);
    report.fromHistory += countBasis(r, `${r.ticker} ${r.t}`, report.problems);
    unrounded.set(key(r.ticker!, r.t!), level);
    const diff = new D(level.toFixed(8, Decimal.ROUND_HALF_EVEN)).minus(new D(r.index_level!)).abs();
    if (diff.greaterThan(maxDiff)) maxDiff = diff;
    report.hours += 1;
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
        report.problems.push(`${ticker} ${c.version}: its base cannot be recomputed from this month's files`);
        continue;
      }
      const diff = Decimal.max(basket.minus(c.baseBasket).abs(), level.minus(c.baseLevel).abs());
      if (diff.greaterThan(maxBase)) maxBase = diff;
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
  observedAt: Date | null;
  settlementAt: Date | null;
  resolved: boolean;
  p: number | null;
}

interface Recomputed {
  t: string;
  headlinePts: number;
  speedH: number;
  legs: Array<{ conditionId: string; legKey: string; label: string; gridOrder: number; p: number; days: number | null }>;
}

type ClockJson = Record<string, { tier: "budget-implied" | "historical-clock"; speed: number; speedLo: number; speedHi: number; windowDays: number; coverage: number }>;

function verifyVolMonth(dir: string, report: VolReport, prevBySeries: Map<string, Recomputed>, seriesSeen: Set<string>): void {
  const defs = new Map(
    readCsv(dir, "volatility_series.csv").map((r) => [
      r.ticker!,
      { H: Number(r.headline_tenor_days), tenors: JSON.parse(r.tenors_days_json!) as number[], gates: JSON.parse(r.gates_json!) as VolGates },
    ]),
  );
  const legsOf = new Map<string, LegRow[]>();
  for (const r of readCsv(dir, "volatility_legs.csv")) {
    const k = key(r.ticker!, r.t!);
    if (!legsOf.has(k)) legsOf.set(k, []);
    legsOf.get(k)!.push({
      conditionId: r.condition_id!,
      legKey: r.leg_key!,
      label: r.label!,
      gridOrder: Number(r.grid_order),
      bid: Number(r.bid),
      ask: Number(r.ask),
      mid: Number(r.mid),
      depthUsd: Number(r.depth_usd),
      observedAt: r.observed_at ? new Date(r.observed_at) : null,
      settlementAt: r.settlement_at ? new Date(r.settlement_at) : null,
      resolved: r.resolved === "true",
      p: r.p === "" ? null : Number(r.p),
    });
  }
  const check = (published: number, recomputed: number, what: string) => {
    const diff = Math.abs(published - round6(recomputed));
    report.valuesChecked += 1;
    if (diff > report.maxValueDiff) report.maxValueDiff = diff;
    if (diff > VOL_ROUNDING && report.problems.length < 50) report.problems.push(`${what}: published ${published}, recomputed ${recomputed}`);
  };

  for (const r of readCsv(dir, "volatility_history.csv")) {
    const def = defs.get(r.ticker!);
    const legs = (legsOf.get(key(r.ticker!, r.t!)) ?? []).sort((a, b) => a.gridOrder - b.gridOrder);
    const clock = JSON.parse(r.clock_json || "null") as ClockJson | null;
    const where = `${r.ticker} ${r.t}`;
    if (def === undefined || legs.length === 0 || clock === null) {
      report.problems.push(`${where}: series definition, leg panel or clock missing`);
      continue;
    }
    seriesSeen.add(r.ticker!);
    report.computations += 1;
    report.fromHistory += countBasis(r, where, report.problems);
    const t = new Date(r.t!);
    const live = legs.filter((l) => l.observedAt !== null);
    const mids = live.map((l) => l.mid);
    const p = devigMultiplicative(mids) ?? [];
    const days = live.map((l) => (l.settlementAt === null ? null : (l.settlementAt.getTime() - t.getTime()) / 86_400_000));
    const part = preparePartition(p, days);
    const budget = part.budget;
    const scenarios = devigScenarios({ mid: mids, bid: live.map((l) => l.bid), ask: live.map((l) => l.ask) }).map((s) => preparePartition(s.p, days));
    const clockOf = (tau: number): ClockEstimate => {
      const c = clock[String(tau)];
      if (c === undefined) throw new Error(`${where}: no clock for ${tau} days`);
      return c;
    };
    live.forEach((l, j) => {
      if (l.p !== null && Math.abs(l.p - (p[j] as number)) > 1e-12) report.problems.push(`${where}: leg ${l.legKey} p ${l.p} is not mid / sum of mids ${p[j]}`);
    });

    const tenors = JSON.parse(r.tenors_json!) as Record<string, { pts: number; share: number; share_ci: [number, number] | null }>;
    const ptsOf = (tau: number) => 100 * Math.sqrt(partitionTenorVariance(part, tau, clockOf(tau).speed, "diffusion"));
    const legPts: Record<string, number[]> = {};
    for (const tau of def.tenors) {
      const speed = clockOf(tau).speed;
      const legVar = p.map((_, j) => legTenorVariance(part, j, tau, speed, "diffusion"));
      legPts[String(tau)] = legVar.map((v) => round6(100 * Math.sqrt(v)));
      const v = legVar.reduce((s, x) => s + x, 0);
      const published = tenors[String(tau)];
      if (published === undefined) continue;
      check(published.pts, 100 * Math.sqrt(v), `${where} ${tau}d pts`);
      const share = budget > 0 ? v / budget : 0;
      check(published.share, share, `${where} ${tau}d share`);
      if (published.share_ci !== null) {
        const env = tenorEnvelope(scenarios, tau, clockOf(tau));
        check(published.share_ci[0], Math.min(env.shareLo, share), `${where} ${tau}d share_ci lo`);
        check(published.share_ci[1], Math.max(env.shareHi, share), `${where} ${tau}d share_ci hi`);
      }
    }
    const headline = ptsOf(def.H);
    check(Number(r.headline_pts), headline, `${where} headline`);
    const env = tenorEnvelope(scenarios, def.H, clockOf(def.H));
    check(Number(r.band_lo_pts), Math.min(env.ptsLo, headline), `${where} band lo`);
    check(Number(r.band_hi_pts), Math.max(env.ptsHi, headline), `${where} band hi`);
    check(Number(r.fbv_r_pts), 100 * Math.sqrt(budget), `${where} fbvRPts`);

    // gates: the engine's rule over the panel's quotes
    const speedH = clockOf(def.H).speed;
    const liveIndex = new Map(live.map((l, j) => [l.conditionId, j]));
    const impact = live.map((l, j) => {
      if (l.resolved) return 0;
      return Math.max(
        ...[l.bid, l.ask].map((side) => {
          const moved = devigMultiplicative(mids.map((m, i) => (i === j ? side : m)));
          return moved === null ? 0 : Math.abs(100 * Math.sqrt(partitionTenorVariance(preparePartition(moved, days), def.H, speedH, "diffusion")) - headline);
        }),
      );
    });
    const scen = devigScenarios({ mid: mids, bid: live.map((l) => l.bid), ask: live.map((l) => l.ask) });
    const powerP = scen.find((s) => s.side === "mid" && s.method === "power")?.p ?? null;
    const devigGap =
      powerP === null
        ? null
        : p.reduce<{ legKey: string; gap: number } | null>((worst, pj, j) => {
            const gap = Math.abs(pj - (powerP[j] as number));
            return worst === null || gap > worst.gap ? { legKey: (live[j] as LegRow).legKey, gap } : worst;
          }, null);
    const pythagorean = def.tenors.map((tau) => ({
      tenorDays: tau,
      gapPts2: (tenors[String(tau)]?.pts ?? 0) ** 2 - (legPts[String(tau)] ?? []).reduce((s, x) => s + x ** 2, 0),
    }));
    const before = prevBySeries.get(r.ticker!);
    // the delta is measured from the computation named in attr_delta_from (published or withheld)
    const prev = r.attr_delta_from && before?.t === r.attr_delta_from ? before : undefined;
    let identityResidual: number | null = null;
    if (prev !== undefined) {
      const prevById = new Map(prev.legs.map((l) => [l.conditionId, l]));
      const ids = [...new Set([...live.map((l) => l.conditionId), ...prev.legs.map((l) => l.conditionId)])];
      const inputs: AttributionLegInput[] = ids.map((id) => {
        const before = prevById.get(id);
        const j = liveIndex.get(id);
        const nowClock: LegClock | undefined = j === undefined ? undefined : { days: days[j] ?? null, speed: speedH };
        const prevClock: LegClock | undefined = before === undefined ? undefined : { days: before.days, speed: prev.speedH };
        return {
          legKey: id,
          label: id,
          gridOrder: 0,
          p0: before?.p ?? 0,
          p1: j === undefined ? 0 : (p[j] as number),
          clock0: prevClock ?? (nowClock as LegClock),
          clock1: nowClock ?? (prevClock as LegClock),
        };
      });
      const f = (pp: number, c: LegClock) => PTS2 * diffusionVariance(pp, c.days === null ? 1 : horizonFraction(def.H, c.days, c.speed));
      const splits = attributeLegs(inputs, f);
      identityResidual = round6(headline * headline - prev.headlinePts * prev.headlinePts) - splits.reduce((s, x) => s + round6(x.deltaPrice) + round6(x.deltaClock), 0);
      check(Number(r.attr_delta_headline_pts), headline - prev.headlinePts, `${where} attrDeltaHeadlinePts`);
    } else if (r.attr_delta_from) {
      report.identityUnchecked += 1;
    }
    const gateLegs: GateLeg[] = legs.map((l) => {
      const j = liveIndex.get(l.conditionId);
      const pj = j === undefined ? 0 : (p[j] as number);
      return {
        legKey: l.legKey,
        label: l.label,
        bid: l.bid,
        ask: l.ask,
        mid: l.mid,
        depthUsd: l.depthUsd,
        observedAt: l.observedAt,
        resolved: l.resolved,
        budgetShare: j === undefined || budget <= 0 ? 0 : varianceToResolution(pj) / budget,
        impactPts: j === undefined ? 0 : (impact[j] as number),
      };
    });
    const gates = evaluateGates({
      gates: def.gates,
      t,
      legs: gateLegs,
      sumRaw: mids.reduce((s, m) => s + m, 0),
      devigGap,
      pythagorean,
      identityResidualPts2: identityResidual,
    });
    const names = [...new Set(gates.flags.map((g) => g.gate))].sort();
    const publishedNames = (JSON.parse(r.gate_names_json || "[]") as string[]).sort();
    const comparable = prev !== undefined || !r.attr_delta_from;
    if (comparable) {
      report.gateDecisionsChecked += 1;
      if (gates.status !== r.status || names.join() !== publishedNames.join()) {
        report.gateMismatches += 1;
        if (report.problems.length < 50) report.problems.push(`${where}: gates recomputed ${gates.status} [${names}], published ${r.status} [${publishedNames}]`);
      }
    }
    prevBySeries.set(r.ticker!, {
      t: r.t!,
      headlinePts: headline,
      speedH,
      legs: live.map((l, j) => ({ conditionId: l.conditionId, legKey: l.legKey, label: l.label, gridOrder: l.gridOrder, p: p[j] as number, days: days[j] ?? null })),
    });
  }
}

/** Recomputes every index level and volatility value of the bundles under dir. */
export function verifyBundles(dir: string): VerifyReport {
  const months = monthDirs(dir);
  const index: IndexReport = { hours: 0, indices: 0, maxLevelDiff: "0", basesChecked: 0, maxBaseDiff: "0", fromHistory: 0, problems: [] };
  const volatility: VolReport = { computations: 0, series: 0, valuesChecked: 0, maxValueDiff: 0, gateDecisionsChecked: 0, gateMismatches: 0, identityUnchecked: 0, fromHistory: 0, problems: [] };
  const tickers = new Set<string>();
  const seriesSeen = new Set<string>();
  const prevBySeries = new Map<string, Recomputed>();
  for (const m of months) {
    verifyIndexMonth(m, index, tickers);
    verifyVolMonth(m, volatility, prevBySeries, seriesSeen);
  }
  index.indices = tickers.size;
  volatility.series = seriesSeen.size;
  return { months: months.map((m) => path.basename(m)), index, volatility };
}
