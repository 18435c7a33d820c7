import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { devigMultiplicative } from "@/lib/engine/devig";
import {
  attributeLegs,
  type AttributionLegInput,
  type LegClock,
  type LegShape,
} from "@/lib/engine/volatility/attribution";
import { horizonFraction, varianceToResolution } from "@/lib/engine/volatility/diffusion-share";
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
  type PreparedPartition,
} from "@/lib/engine/volatility/tenor-variance";
import { addClockIncrement, estimateClock, publishedClock } from "@/lib/engine/volatility/clock";
import type { ClockEstimate, Counterfactual, InceptionConfig, VolGates } from "@/lib/engine/volatility/types";
import {
  MS_DAY,
  VOL_ROUNDING,
  key,
  readCsv,
  volRulesOf,
  type ClockJson,
  type ClockTrack,
  type LegRow,
  type Recomputed,
  type Row,
  type VolReport,
  type VolRules,
} from "@/lib/snapshots/verify-common";
import { decideGates, type GateFacts } from "@/lib/snapshots/verify-gates";

// Volatility: the engine's published formulas over the leg panel (volatility_legs.csv), the clock
// from the published increments, the attribution, the counterfactual, and the gates decided by the
// documented rules in exact decimal arithmetic (lib/snapshots/verify-gates.ts).

type SeriesDef = { H: number; tenors: number[]; gates: VolGates; order: string | undefined };

/** A month's volatility files, read and grouped by computation (ticker and hour). */
interface VolMonth {
  month: string;
  hasIncrements: boolean;
  history: Row[];
  attributionOf: Map<string, Row[]>;
  defs: Map<string, SeriesDef>;
  legsOf: Map<string, LegRow[]>;
  departedOf: Map<string, LegRow[]>;
}

/** Where a failure is (file, ticker, hour, mutable as the checks move on), how to record one, and how to compare a value at its rounding. */
interface Checker {
  file: string;
  ticker: string;
  t: string;
  fail: (what: string, published: string | number, recomputed: string | number) => void;
  check: (published: number, recomputed: number, what: string) => void;
}

/** A computation recomputed from its legs: the partition, the clock per tenor, the tenor points and the headline. */
interface VolHour {
  t: Date;
  legs: LegRow[];
  live: LegRow[];
  mids: number[];
  p: number[];
  days: Array<number | null>;
  part: PreparedPartition;
  budget: number;
  rules: VolRules;
  clockOf: (tau: number) => ClockEstimate;
  liveIndex: Map<string, number>;
  legPts: Record<string, number[]>;
  tenors: Record<string, { pts: number; share: number; share_ci: [number, number] | null }>;
  headline: number;
  speedH: number;
}

export function verifyVolMonth(
  dir: string,
  report: VolReport,
  prevBySeries: Map<string, Recomputed>,
  seriesSeen: Set<string>,
  clocks: Map<string, ClockTrack>,
  dirStart: number,
  inceptions: Map<string, InceptionConfig>,
): void {
  const m = readVolMonth(dir, report, inceptions);
  const monthStart = m.history[0] ? Date.parse(`${m.history[0].t!.slice(0, 7)}-01T00:00:00Z`) : 0;
  for (const track of clocks.values()) {
    if (!m.hasIncrements) track.knownFrom = Number.POSITIVE_INFINITY;
    else if (track.knownFrom === Number.POSITIVE_INFINITY) track.knownFrom = monthStart;
  }
  const c = checkerOf(report, m.month);
  for (const r of m.history) {
    c.ticker = r.ticker!;
    c.t = r.t!;
    c.file = "volatility_history.csv";
    const def = m.defs.get(r.ticker!);
    const legs = (m.legsOf.get(key(r.ticker!, r.t!)) ?? []).sort((a, b) => a.gridOrder - b.gridOrder);
    const clock = JSON.parse(r.clock_json || "null") as ClockJson | null;
    if (def === undefined || legs.length === 0 || clock === null) {
      c.fail("computation", r.headline_pts ?? "", "series definition, leg panel or clock missing");
      continue;
    }
    seriesSeen.add(r.ticker!);
    report.computations += 1;
    const rules = volRulesOf(r.methodology_version, def.order);
    if (r.basis !== undefined && r.basis !== "live") report.fromHistory += 1;
    const t = new Date(r.t!);
    checkFidelity(r, legs, report, c);
    checkClock(
      r,
      t,
      clock,
      trackOf(clocks, r.ticker!, t, m.hasIncrements, dirStart),
      m.hasIncrements,
      rules,
      report,
      c,
    );
    const h = recomputeTenors(r, t, def, legs, clock, rules, c);
    const prev = prevOf(r, prevBySeries);
    const identity = prev === undefined ? null : checkAttribution(r, def, h, prev, m.attributionOf, report, c);
    if (prev === undefined && r.attr_delta_from) report.identityUnchecked += 1;
    checkCounterfactualOf(r, h, m.departedOf.get(key(r.ticker!, r.t!)) ?? [], inceptions, report, c);
    checkGates(r, def, h, identity, prev !== undefined || !r.attr_delta_from, report, c);
    prevBySeries.set(r.ticker!, recomputedOf(r, h));
  }
}

/** The month's schema version (0 without a manifest). */
function schemaVersionOf(dir: string): number {
  const manifestFile = path.join(dir, "manifest.json");
  return fs.existsSync(manifestFile)
    ? Number((JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { schemaVersion?: unknown }).schemaVersion)
    : 0;
}

/** One row of volatility_legs.csv or volatility_counterfactual_legs.csv. */
function legRow(r: Row): LegRow {
  return {
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
    historyFidelity: r.history_fidelity_minutes,
  };
}

/** Reads a month's volatility files; each series' inception configuration is checked against its fingerprint and kept. */
function readVolMonth(dir: string, report: VolReport, inceptions: Map<string, InceptionConfig>): VolMonth {
  const month = path.basename(dir);
  const attributionOf = new Map<string, Row[]>();
  for (const r of readCsv(dir, "volatility_attribution.csv")) {
    const k = key(r.ticker!, r.t!);
    if (!attributionOf.has(k)) attributionOf.set(k, []);
    attributionOf.get(k)!.push(r);
  }
  const defs = new Map(
    readCsv(dir, "volatility_series.csv").map((r): [string, SeriesDef] => [
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
  const grouped = (file: string) => {
    const out = new Map<string, LegRow[]>();
    for (const r of readCsv(dir, file)) {
      const k = key(r.ticker!, r.t!);
      if (!out.has(k)) out.set(k, []);
      out.get(k)!.push(legRow(r));
    }
    return out;
  };
  return {
    month,
    hasIncrements: schemaVersionOf(dir) >= 3,
    history: readCsv(dir, "volatility_history.csv"),
    attributionOf,
    defs,
    legsOf: grouped("volatility_legs.csv"),
    // the inception legs no longer in force at t (schemaVersion 6): the rest of the counterfactual's inputs
    departedOf: grouped("volatility_counterfactual_legs.csv"),
  };
}

function checkerOf(report: VolReport, month: string): Checker {
  const c: Checker = {
    file: "volatility_history.csv",
    ticker: "",
    t: "",
    fail: (what, published, recomputed) =>
      report.failures.push({
        month,
        file: c.file,
        ticker: c.ticker,
        t: c.t,
        what,
        published: String(published),
        recomputed: String(recomputed),
      }),
    check: (published, recomputed, what) => {
      const diff = Math.abs(published - round6(recomputed));
      report.valuesChecked += 1;
      if (diff > report.maxValueDiff) report.maxValueDiff = diff;
      if (diff > VOL_ROUNDING) c.fail(what, published, round6(recomputed));
    },
  };
  return c;
}

/**
 * `history_fidelity_minutes`: a leg's is its market's history fidelity when its quote is a point of
 * that history (not a settlement) and it is coarser than hourly (720: a resolved Polymarket market's 12-hour points), the
 * computation's is the coarsest of its legs'; empty otherwise, and never on a live value. Bundles
 * built before the column lack it: their history is hourly (60 minutes) or the books were read live.
 */
function checkFidelity(r: Row, legs: readonly LegRow[], report: VolReport, c: Checker): void {
  const published = r.history_fidelity_minutes;
  if (published === undefined) return;
  if (Number(published) > 60) report.coarseHistory += 1;
  if (published !== "" && r.basis === "live") c.fail("history_fidelity_minutes", published, "empty (a live value)");
  if (legs.some((l) => l.historyFidelity === undefined)) return;
  c.file = "volatility_legs.csv";
  for (const l of legs)
    if (l.historyFidelity !== "" && (!l.fromHistory || l.resolved))
      c.fail(`leg ${l.legKey} history_fidelity_minutes`, l.historyFidelity!, "empty (not a point of the history)");
  c.file = "volatility_history.csv";
  const most = Math.max(0, ...legs.map((l) => Number(l.historyFidelity || 0)));
  const recomputed = most > 0 ? String(most) : "";
  if (recomputed !== published) c.fail("history_fidelity_minutes", published, recomputed);
}

/** The series' clock track; a series whose first computation in DIR is not at its first hour may have history before DIR. */
function trackOf(clocks: Map<string, ClockTrack>, ticker: string, t: Date, hasIncrements: boolean, dirStart: number) {
  let track = clocks.get(ticker);
  if (track === undefined) {
    track = {
      buckets: [],
      knownFrom: !hasIncrements
        ? Number.POSITIVE_INFINITY
        : t.getTime() > dirStart
          ? Number.NEGATIVE_INFINITY
          : dirStart,
    };
    clocks.set(ticker, track);
  }
  return track;
}

/** The clock: rebuilt from the hourly increments published before t, per tenor, compared digit for digit; then this hour's increment added. */
function checkClock(
  r: Row,
  t: Date,
  clock: ClockJson,
  track: ClockTrack,
  hasIncrements: boolean,
  rules: VolRules,
  report: VolReport,
  c: Checker,
): void {
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
    const estimate = publishedClock(rules.v2 ? withCalendarPrior(raw, rules.order) : raw);
    report.clocksChecked += 1;
    for (const field of ["tier", "speed", "speedLo", "speedHi", "windowDays", "coverage"] as const) {
      if (estimate[field] !== published[field]) c.fail(`clock ${tau}d ${field}`, published[field], estimate[field]);
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
}

/** The partition from the leg panel, every tenor's points, share and interval, the legs' points, the headline, band and fbv_r. */
function recomputeTenors(
  r: Row,
  t: Date,
  def: SeriesDef,
  legs: LegRow[],
  clock: ClockJson,
  rules: VolRules,
  c: Checker,
): VolHour {
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
    const estimate = clock[String(tau)];
    if (estimate === undefined) throw new Error(`${c.ticker} ${c.t}: no clock for ${tau} days`);
    return estimate;
  };
  c.file = "volatility_legs.csv";
  live.forEach((l, j) => {
    if (l.p !== null && Math.abs(l.p - (p[j] as number)) > 1e-12) c.fail(`leg ${l.legKey} p`, l.p, p[j] as number);
  });
  c.file = "volatility_history.csv";
  const tenors = JSON.parse(r.tenors_json!) as VolHour["tenors"];
  const ptsOf = (tau: number) => 100 * Math.sqrt(partitionTenorVariance(part, tau, clockOf(tau).speed, "diffusion"));
  const legPts: Record<string, number[]> = {};
  for (const tau of def.tenors) {
    const speed = clockOf(tau).speed;
    const legVar = p.map((_, j) => legTenorVariance(part, j, tau, speed, "diffusion"));
    legPts[String(tau)] = legVar.map((v) => round6(100 * Math.sqrt(v)));
    const v = legVar.reduce((s, x) => s + x, 0);
    const published = tenors[String(tau)];
    if (published === undefined) continue;
    c.check(published.pts, 100 * Math.sqrt(v), `${tau}d pts`);
    const share = budget > 0 ? v / budget : 0;
    c.check(published.share, share, `${tau}d share`);
    if (published.share_ci !== null) {
      const env = tenorEnvelope(scenarios, tau, clockOf(tau));
      c.check(published.share_ci[0], Math.min(env.shareLo, share), `${tau}d share_ci lo`);
      c.check(published.share_ci[1], Math.max(env.shareHi, share), `${tau}d share_ci hi`);
    }
  }
  // the legs' published tenor points (the leg panel), checked and then used by the Pythagorean gate
  c.file = "volatility_legs.csv";
  live.forEach((l, j) => {
    if (l.tenorPts === null) return;
    for (const tau of def.tenors) {
      const published = l.tenorPts[String(tau)];
      if (published !== undefined)
        c.check(published, legPts[String(tau)]?.[j] as number, `leg ${l.legKey} ${tau}d pts`);
    }
  });
  c.file = "volatility_history.csv";
  const headline = ptsOf(def.H);
  c.check(Number(r.headline_pts), headline, "headline_pts");
  const env = tenorEnvelope(scenarios, def.H, clockOf(def.H));
  c.check(Number(r.band_lo_pts), Math.min(env.ptsLo, headline), "band_lo_pts");
  c.check(Number(r.band_hi_pts), Math.max(env.ptsHi, headline), "band_hi_pts");
  c.check(Number(r.fbv_r_pts), 100 * Math.sqrt(budget), "fbv_r_pts");
  const liveIndex = new Map(live.map((l, j) => [l.conditionId, j]));
  const speedH = clockOf(def.H).speed;
  return { t, legs, live, mids, p, days, part, budget, rules, clockOf, liveIndex, legPts, tenors, headline, speedH };
}

/** The previous computation, when it is the one named in attr_delta_from (published or withheld) and in DIR. */
function prevOf(r: Row, prevBySeries: Map<string, Recomputed>): Recomputed | undefined {
  const before = prevBySeries.get(r.ticker!);
  return r.attr_delta_from && before?.t === r.attr_delta_from ? before : undefined;
}

/**
 * The attribution against the previous computation: the move of the headline, its square, and every
 * leg's price and clock parts (volatility_attribution.csv). Returns the identity the gates check.
 */
function checkAttribution(
  r: Row,
  def: SeriesDef,
  h: VolHour,
  prev: Recomputed,
  attributionOf: Map<string, Row[]>,
  report: VolReport,
  c: Checker,
): GateFacts["identity"] {
  const prevById = new Map(prev.legs.map((l) => [l.conditionId, l]));
  const ids = [...new Set([...h.live.map((l) => l.conditionId), ...prev.legs.map((l) => l.conditionId)])];
  const inputs: AttributionLegInput[] = ids.map((id) => {
    const before = prevById.get(id);
    const j = h.liveIndex.get(id);
    const nowClock: LegClock | undefined = j === undefined ? undefined : { days: h.days[j] ?? null, speed: h.speedH };
    const prevClock: LegClock | undefined =
      before === undefined ? undefined : { days: before.days, speed: prev.speedH };
    return {
      legKey: id,
      label: id,
      gridOrder: 0,
      p0: before?.pv ?? 0,
      p1: j === undefined ? 0 : (h.part.p[j] as number),
      clock0: prevClock ?? (nowClock as LegClock),
      clock1: nowClock ?? (prevClock as LegClock),
      shape0: before?.shape,
      shape1: j === undefined ? undefined : legShape(h.part, j),
    };
  });
  const f = (pp: number, clock: LegClock, shape?: LegShape) =>
    PTS2 * legVarianceAt(pp, shape, clock.days === null ? 1 : horizonFraction(def.H, clock.days, clock.speed));
  const splits = attributeLegs(inputs, f);
  const deltaPts2 = h.headline * h.headline - prev.headlinePts * prev.headlinePts;
  c.check(Number(r.attr_delta_headline_pts), h.headline - prev.headlinePts, "attr_delta_headline_pts");
  if (r.attr_delta_pts2 !== undefined && r.attr_delta_pts2 !== "")
    c.check(Number(r.attr_delta_pts2), deltaPts2, "attr_delta_pts2");
  const published = attributionOf.get(key(r.ticker!, r.t!));
  if (published === undefined)
    return { deltaPts2: round6(deltaPts2), parts: splits.flatMap((x) => [round6(x.deltaPrice), round6(x.deltaClock)]) };
  // per-leg attribution (volatility_attribution.csv), by leg key
  const legKeyOf = (id: string) =>
    h.live.find((l) => l.conditionId === id)?.legKey ?? prev.legs.find((l) => l.conditionId === id)?.legKey ?? id;
  c.file = "volatility_attribution.csv";
  const byKey = new Map(published.map((a) => [a.leg_key!, a]));
  for (const x of splits) {
    const a = byKey.get(legKeyOf(x.legKey));
    report.attributionLegsChecked += 1;
    if (a === undefined) {
      c.fail(`leg ${legKeyOf(x.legKey)} attribution`, "no row", `${round6(x.deltaPrice)} / ${round6(x.deltaClock)}`);
      continue;
    }
    c.check(Number(a.delta_price), x.deltaPrice, `leg ${a.leg_key} delta_price`);
    c.check(Number(a.delta_clock), x.deltaClock, `leg ${a.leg_key} delta_clock`);
    c.check(Number(a.delta), x.delta, `leg ${a.leg_key} delta`);
  }
  if (published.length !== splits.length) c.fail("attribution legs", published.length, splits.length);
  c.file = "volatility_history.csv";
  return {
    deltaPts2: Number(r.attr_delta_pts2),
    parts: published.flatMap((a) => [Number(a.delta_price), Number(a.delta_clock)]),
  };
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

/** The departed inception legs are inception legs not in force, and the counterfactual recomputes over the inception legs. */
function checkCounterfactualOf(
  r: Row,
  h: VolHour,
  departed: readonly LegRow[],
  inceptions: Map<string, InceptionConfig>,
  report: VolReport,
  c: Checker,
): void {
  const counterfactual = JSON.parse(r.counterfactual_json || "null") as Counterfactual | null;
  if (counterfactual === null) return;
  const config = inceptions.get(key(r.ticker!, counterfactual.anchorFingerprint));
  c.file = "volatility_counterfactual_legs.csv";
  const inPanel = new Set(h.legs.map((l) => l.conditionId));
  for (const l of departed) {
    if (inPanel.has(l.conditionId))
      c.fail(`leg ${l.legKey}`, "an inception leg no longer in force", "in force (a row of volatility_legs.csv)");
    else if (config !== undefined && !config.legs.includes(l.conditionId))
      c.fail(
        `leg ${l.legKey}`,
        "an inception leg no longer in force",
        "not an inception leg (volatility_inception.csv)",
      );
  }
  c.file = "volatility_history.csv";
  if (
    config !== undefined &&
    checkCounterfactual(counterfactual, config, [...departed, ...h.legs], h.t, c.check, h.rules)
  ) {
    report.counterfactualsChecked += 1;
    if (counterfactual.anchorAt !== config.anchorAt)
      c.fail("counterfactual anchorAt", counterfactual.anchorAt, config.anchorAt);
    if (counterfactual.clockVersion !== config.clockVersion)
      c.fail("counterfactual clockVersion", counterfactual.clockVersion, config.clockVersion);
  } else report.counterfactualUnchecked += 1;
}

/** Per quoted leg: the largest move of the headline when the leg is quoted at its bid or ask instead of its mid. */
function impactOf(def: SeriesDef, h: VolHour): number[] {
  return h.live.map((l, j) => {
    if (l.resolved) return 0;
    return Math.max(
      ...[l.bid, l.ask].map((side) => {
        const moved = devigMultiplicative(h.mids.map((m, i) => (i === j ? side : m)));
        return moved === null
          ? 0
          : Math.abs(
              100 *
                Math.sqrt(
                  partitionTenorVariance(
                    preparePartition(moved, h.days, h.rules.order, h.rules.v2),
                    def.H,
                    h.speedH,
                    "diffusion",
                  ),
                ) -
                h.headline,
            );
      }),
    );
  });
}

/** The gates: the documented rules over the panel's quotes, in exact decimal, against the published status and names. */
function checkGates(
  r: Row,
  def: SeriesDef,
  h: VolHour,
  identity: GateFacts["identity"],
  comparable: boolean,
  report: VolReport,
  c: Checker,
): void {
  const impact = impactOf(def, h);
  const scen = devigScenarios({ mid: h.mids, bid: h.live.map((l) => l.bid), ask: h.live.map((l) => l.ask) });
  const powerP = scen.find((s) => s.side === "mid" && s.method === "power")?.p ?? null;
  const devigGap = powerP === null ? null : Math.max(...h.p.map((pj, j) => Math.abs(pj - (powerP[j] as number))));
  const pythagorean = def.tenors.map((tau) => ({
    pts: h.tenors[String(tau)]?.pts ?? 0,
    legPts: h.legs.map((l) => {
      const j = h.liveIndex.get(l.conditionId);
      return l.tenorPts?.[String(tau)] ?? (j === undefined ? 0 : (h.legPts[String(tau)]?.[j] as number));
    }),
  }));
  const gates = decideGates({
    gates: def.gates,
    t: h.t,
    legs: h.legs,
    impactPts: h.legs.map((l) => {
      const j = h.liveIndex.get(l.conditionId);
      return j === undefined ? 0 : (impact[j] as number);
    }),
    budgetShare: h.legs.map((l) => {
      const j = h.liveIndex.get(l.conditionId);
      return j === undefined || h.budget <= 0 ? 0 : varianceToResolution(h.part.p[j] as number) / h.budget;
    }),
    devigGap,
    pythagorean,
    identity,
  });
  const publishedNames = [...new Set(JSON.parse(r.gate_names_json || "[]") as string[])].sort();
  if (!comparable) return;
  report.gateDecisionsChecked += 1;
  if (gates.status !== r.status || gates.names.join() !== publishedNames.join()) {
    report.gateMismatches += 1;
    c.fail("status [gates]", `${r.status} [${publishedNames.join(" ")}]`, `${gates.status} [${gates.names.join(" ")}]`);
  }
}

/** This computation as the next one's previous. */
function recomputedOf(r: Row, h: VolHour): Recomputed {
  return {
    t: r.t!,
    headlinePts: h.headline,
    speedH: h.speedH,
    legs: h.live.map((l, j) => ({
      conditionId: l.conditionId,
      legKey: l.legKey,
      label: l.label,
      gridOrder: l.gridOrder,
      p: h.p[j] as number,
      pv: h.part.p[j] as number,
      shape: legShape(h.part, j),
      days: h.days[j] ?? null,
    })),
  };
}
