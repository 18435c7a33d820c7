import path from "node:path";
import Decimal from "decimal.js";
import { D, key, readCsv, type IndexReport, type Row } from "@/lib/snapshots/verify-common";

// Index levels: L_t = base_level * sum(w_i * p_i,t) / base_basket_value of the composition that
// priced t, in decimal arithmetic (multiply first), rounded to eight decimals ROUND_HALF_EVEN; and
// every composition base starting in the month, recomputed from the chain.

type Composition = { version: string; at: number; baseLevel: Decimal; baseBasket: Decimal };
type Fail = (
  file: string,
  ticker: string,
  t: string | null,
  what: string,
  published: string,
  recomputed: string,
) => void;

/** A month's index files: compositions by ticker (in order of effect), and the basket value of a composition at an hour. */
interface IndexMonth {
  comps: Map<string, Composition[]>;
  basketOf: (ticker: string, version: string, t: string) => Decimal | null;
  levels: Row[];
}

export function verifyIndexMonth(dir: string, report: IndexReport, tickers: Set<string>): void {
  const month = path.basename(dir);
  const fail: Fail = (file, ticker, t, what, published, recomputed) =>
    report.failures.push({ month, file, ticker, t, what, published, recomputed });
  const m = readIndexMonth(dir);
  const unrounded = checkLevels(m, report, tickers, fail);
  checkBases(m, unrounded, report, fail);
}

/** Reads the weights, compositions, constituent prices and levels of a month folder. */
function readIndexMonth(dir: string): IndexMonth {
  const weights = new Map<string, Map<string, Decimal>>();
  for (const r of readCsv(dir, "target_weights.csv")) {
    const k = key(r.ticker!, r.composition_version!);
    if (!weights.has(k)) weights.set(k, new Map());
    weights.get(k)!.set(r.condition_id!, new D(r.target_weight!));
  }
  const comps = new Map<string, Composition[]>();
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
  return { comps, basketOf, levels: readCsv(dir, "index_levels.csv") };
}

/** Every hourly level recomputed under the composition that priced it; returns the unrounded levels by ticker and hour. */
function checkLevels(m: IndexMonth, report: IndexReport, tickers: Set<string>, fail: Fail): Map<string, Decimal> {
  const unrounded = new Map<string, Decimal>();
  let maxDiff = new D(report.maxLevelDiff);
  for (const r of m.levels) {
    tickers.add(r.ticker!);
    const ms = Date.parse(r.t!);
    const list = m.comps.get(r.ticker!) ?? [];
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
    const basket = m.basketOf(r.ticker!, pricing.version, r.t!);
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
    // history_fidelity_minutes (absent in older bundles: hourly history or live): never on a live level
    if (Number(r.history_fidelity_minutes || 0) > 60) report.coarseHistory += 1;
    if (r.history_fidelity_minutes && r.basis === "live")
      fail(
        "index_levels.csv",
        r.ticker!,
        r.t!,
        "history_fidelity_minutes",
        r.history_fidelity_minutes,
        "empty (a live level)",
      );
  }
  report.maxLevelDiff = maxDiff.toFixed(8);
  return unrounded;
}

/** Every composition base starting inside the month: inception (100 and its own basket) or the chain. */
function checkBases(m: IndexMonth, unrounded: Map<string, Decimal>, report: IndexReport, fail: Fail): void {
  const firstHour = new Map<string, number>();
  for (const r of m.levels) {
    const ms = Date.parse(r.t!);
    if (!firstHour.has(r.ticker!) || ms < firstHour.get(r.ticker!)!) firstHour.set(r.ticker!, ms);
  }
  let maxBase = new D(report.maxBaseDiff);
  for (const [ticker, list] of m.comps) {
    for (const c of list) {
      const t = m.levels.find((r) => r.ticker === ticker && Date.parse(r.t!) === c.at)?.t;
      if (t === undefined) continue;
      const basket = m.basketOf(ticker, c.version, t);
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
