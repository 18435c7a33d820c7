import Decimal from "decimal.js";
import { normCdf, normInv } from "@/lib/engine/volatility/normal";
import { floorHour, MS_PER_DAY, MS_PER_HOUR } from "@/lib/engine/time-format";
import type { Snapshot } from "@/lib/engine/types";
import {
  FACTORS,
  LADDER,
  PARTITIONS,
  THEME_SCHEDULES,
  conditionIdOf,
  hourAt,
  midnightAfter,
  partitionLegKey,
  scheduledListing,
  type MarketSpec,
} from "./demo-world";
import { Rng, hashSeed } from "./demo-prng";
import { quoteSnapshot, resolvedSnapshot } from "./demo-quotes";
import type { DemoEventState, DemoMarketState, DemoSnapshotJson, DemoState } from "./demo-state";

import type { FeedMarket } from "./feed-market";

export type { DemoState } from "./demo-state";

/** A market of the demo, as every feed lists its markets (lib/ingest/feed-market.ts). */
export type DemoMarketInfo = FeedMarket;

/** Everything the feed produced for one hour. */
export interface DemoHour {
  t: Date;
  /** snapshots observed in this hour (markets that went dark this hour are absent) */
  observed: Snapshot[];
  /** the latest snapshot at or before t of every market still carried by the feed */
  latest: Snapshot[];
  /** markets listed by t and not yet dropped (resolved markets stay 24 hours) */
  universe: DemoMarketInfo[];
  listedNow: DemoMarketInfo[];
  resolvedNow: DemoMarketInfo[];
}

export interface DemoMarket {
  readonly seed: number;
  readonly start: Date;
  /** time of the last generated hour, null before the first */
  cursor(): Date | null;
  /** generates the next hour (the first call yields `start`) */
  advance(): DemoHour;
  /** the hour at t (floored to the hour grid); sequential calls are O(1), going back replays from start */
  hourAt(t: Date): DemoHour;
  snapshotsAt(t: Date): Snapshot[];
  /** JSON-safe copy of the generator state; `resumeDemoMarket` continues from it */
  state(): DemoState;
}

export interface DemoOptions {
  seed: number;
  start: Date;
}

/** Markets leave the feed this long after they resolve. */
const KEEP_RESOLVED_HOURS = 24;
/** Hours per day, as a fraction for Brownian increments. */
const HOUR_DAYS = 1 / 24;

function marketState(seed: number, spec: MarketSpec): DemoMarketState {
  return {
    conditionId: conditionIdOf(seed, spec.key),
    label: spec.label,
    legKey: spec.legKey,
    eventKey: spec.eventKey,
    theme: spec.theme,
    listedAt: spec.listedAt.toISOString(),
    settlementAt: spec.settlementAt.toISOString(),
    model: spec.model,
    quote: spec.quote,
    rng: hashSeed(seed, "market", spec.key),
    darkUntilHour: -1,
    resolved: false,
    outcome: null,
    resolvedAt: null,
    resolvedHour: null,
    last: null,
  };
}

function factorValue(state: DemoState, name: string): number {
  const f = state.factors[name];
  if (f === undefined) throw new RangeError(`unknown demo factor ${name}`);
  return f.x;
}

function ladderMarket(seed: number, start: Date, strike: number, listedAt: Date): MarketSpec {
  const settlementAt = midnightAfter(start, LADDER.settleDay);
  const rng = new Rng(hashSeed(seed, "ladder", strike));
  return {
    key: `${LADDER.eventKey}:${strike}`,
    label: `Will BTC close above $${strike.toLocaleString("en-US")} on ${settlementAt.toISOString().slice(0, 10)}?`,
    legKey: null,
    eventKey: LADDER.eventKey,
    theme: "crypto",
    listedAt,
    settlementAt,
    model: { kind: "factor", factor: "btc", strike: Math.log(strike) },
    quote: {
      spreadBase: rng.between(0.01, 0.03),
      depthBase: rng.between(2_000, 20_000),
      darkRate: 0.002,
      darkHours: [1, 4],
    },
  };
}

function eventContext(state: DemoState, seed: number, start: Date, theme: string, k: number, listedAt: Date) {
  return {
    rng: new Rng(hashSeed(seed, "event", theme, k)),
    k,
    listedAt,
    start,
    factor: (name: string) => factorValue(state, name),
    inv: normInv,
  };
}

function jitterOf(seed: number, theme: string, k: number): number {
  return new Rng(hashSeed(seed, "jitter", theme, k)).between(-1, 1);
}

/** The generator state at hour -1: factors at their start, partitions and pre-listed markets in place. */
export function initialDemoState(seed: number, start: Date): DemoState {
  const state: DemoState = {
    version: 1,
    seed,
    start: start.toISOString(),
    hour: -1,
    factors: {},
    events: [],
    markets: [],
    cursors: {},
  };
  for (const f of FACTORS)
    state.factors[f.name] = {
      name: f.name,
      x: f.x0,
      sigmaPerDay: f.sigmaPerDay,
      rng: hashSeed(seed, "factor", f.name),
    };
  const preListedAt = new Date(start.getTime() - 20 * MS_PER_DAY);
  for (const spec of PARTITIONS) {
    const legIds = spec.legs.map((leg) => conditionIdOf(seed, partitionLegKey(spec.eventKey, leg.legKey)));
    const settlementAt = midnightAfter(start, spec.settleDay);
    state.events.push({
      eventKey: spec.eventKey,
      theme: spec.theme,
      settlementAt: settlementAt.toISOString(),
      legIds,
      model: structuredClone(spec.model),
      profile: spec.profile,
      overround: 1.015,
      episode: null,
      rng: hashSeed(seed, "partition", spec.eventKey),
      resolved: false,
      winner: null,
    });
    spec.legs.forEach((leg, index) => {
      const rng = new Rng(hashSeed(seed, "partition-leg", spec.eventKey, leg.legKey));
      state.markets.push(
        marketState(seed, {
          key: partitionLegKey(spec.eventKey, leg.legKey),
          label: `${spec.title}: ${leg.label}`,
          legKey: leg.legKey,
          eventKey: spec.eventKey,
          theme: spec.theme,
          listedAt: preListedAt,
          settlementAt,
          model: { kind: "leg", eventKey: spec.eventKey, index },
          quote: spec.quote(rng),
        }),
      );
    });
  }
  for (const strike of LADDER.initialStrikes)
    state.markets.push(
      marketState(seed, ladderMarket(seed, start, strike, new Date(start.getTime() - 10 * MS_PER_DAY))),
    );
  for (const schedule of THEME_SCHEDULES) {
    for (let k = -schedule.preListed; k < 0; k++) {
      const listedAt = scheduledListing(start, schedule, k, jitterOf(seed, schedule.theme, k));
      for (const spec of schedule.make(eventContext(state, seed, start, schedule.theme, k, listedAt)))
        state.markets.push(marketState(seed, spec));
    }
    state.cursors[schedule.theme] = 0;
  }
  state.cursors[LADDER.eventKey] = 1;
  return state;
}

/** Fair probability of every leg of a partition at t. */
function partitionProbabilities(state: DemoState, event: DemoEventState, t: Date): number[] {
  if (event.model.kind === "shares") return event.model.p;
  const f = state.factors[event.model.factor];
  if (f === undefined) throw new RangeError(`unknown demo factor ${event.model.factor}`);
  const days = Math.max(HOUR_DAYS, (new Date(event.settlementAt).getTime() - t.getTime()) / MS_PER_DAY);
  const scale = f.sigmaPerDay * Math.sqrt(days);
  const cdf = event.model.edges.map((e) => normCdf((e - f.x) / scale));
  return [...cdf, 1].map((c, i) => c - (i === 0 ? 0 : (cdf[i - 1] as number)));
}

function fairProbability(state: DemoState, m: DemoMarketState, t: Date, legP: Map<string, number[]>): number {
  const days = Math.max(HOUR_DAYS, (new Date(m.settlementAt).getTime() - t.getTime()) / MS_PER_DAY);
  switch (m.model.kind) {
    case "latent":
      return normCdf(m.model.x / Math.sqrt(days));
    case "factor": {
      const f = state.factors[m.model.factor];
      if (f === undefined) throw new RangeError(`unknown demo factor ${m.model.factor}`);
      return normCdf((f.x - m.model.strike) / (f.sigmaPerDay * Math.sqrt(days)));
    }
    case "leg":
      return legP.get(m.model.eventKey)?.[m.model.index] ?? 0;
  }
}

function outcomeOf(state: DemoState, m: DemoMarketState): 0 | 1 {
  switch (m.model.kind) {
    case "latent":
      return m.model.x > 0 ? 1 : 0;
    case "factor":
      return factorValue(state, m.model.factor) > m.model.strike ? 1 : 0;
    case "leg": {
      const { eventKey, index } = m.model;
      const event = state.events.find((e) => e.eventKey === eventKey);
      return event?.winner === index ? 1 : 0;
    }
  }
}

/** Advances partition dynamics and quote regimes by one hour. */
function stepEvent(state: DemoState, event: DemoEventState, hour: number, t: Date): void {
  const rng = new Rng(event.rng);
  if (!event.resolved && t.getTime() >= new Date(event.settlementAt).getTime()) {
    const p = partitionProbabilities(state, event, t);
    if (event.model.kind === "threshold") {
      const x = factorValue(state, event.model.factor);
      event.winner = event.model.edges.filter((e) => x >= e).length;
    } else {
      let u = rng.next();
      event.winner = p.findIndex((pj) => (u -= pj) < 0);
      if (event.winner < 0) event.winner = p.length - 1;
    }
    event.resolved = true;
  } else if (!event.resolved && event.model.kind === "shares" && hour > 0) {
    const days = Math.max(2, (new Date(event.settlementAt).getTime() - t.getTime()) / MS_PER_DAY);
    const s = Math.min(0.15, event.model.kappa / Math.sqrt(24 * days));
    const p = event.model.p;
    const shocks = p.map(() => Math.max(-3, Math.min(3, rng.normal())));
    const mean = p.reduce((acc, pj, j) => acc + pj * (shocks[j] as number), 0);
    const next = p.map((pj, j) => Math.max(1e-4, pj * (1 + s * ((shocks[j] as number) - mean))));
    const total = next.reduce((a, b) => a + b, 0);
    event.model.p = next.map((v) => v / total);
  }
  // quote regime: mean-reverting overround with profile-specific episodes
  event.overround = 1.015 + 0.7 * (event.overround - 1.015) + 0.004 * rng.normal();
  event.overround = Math.min(1.04, Math.max(1.0, event.overround));
  if (event.episode !== null && hour >= event.episode.untilHour) event.episode = null;
  if (event.episode === null) {
    if (event.profile === "flaggy" && rng.chance(1 / 80)) {
      const over = rng.chance(0.6);
      event.episode = {
        kind: over ? "overround" : "underround",
        level: over ? rng.between(1.07, 1.1) : rng.between(0.955, 0.975),
        untilHour: hour + rng.int(3, 9),
      };
    } else if (event.profile === "thin" && rng.chance(1 / 70)) {
      event.episode = { kind: "stress", level: rng.between(3, 5), untilHour: hour + rng.int(2, 8) };
    }
  }
  event.rng = rng.state;
}

function toSnapshot(m: DemoMarketState, s: DemoSnapshotJson): Snapshot {
  return {
    observedAt: new Date(s.observedAt),
    conditionId: m.conditionId,
    legKey: m.legKey,
    label: m.label,
    bestBid: new Decimal(s.bestBid),
    bestAsk: new Decimal(s.bestAsk),
    mid: new Decimal(s.mid),
    depthUsd: new Decimal(s.depthUsd),
    settlementDate: new Date(m.settlementAt),
    resolved: s.resolved,
    outcome: s.outcome,
  };
}

function toInfo(m: DemoMarketState): DemoMarketInfo {
  return {
    conditionId: m.conditionId,
    label: m.label,
    legKey: m.legKey,
    eventKey: m.eventKey,
    theme: m.theme,
    settlementDate: new Date(m.settlementAt),
    listedAt: new Date(m.listedAt),
    resolvedAt: m.resolvedAt === null ? null : new Date(m.resolvedAt),
    outcome: m.outcome,
  };
}

/** Lists the markets whose scheduled time has come. */
function listDue(state: DemoState, t: Date, start: Date): DemoMarketState[] {
  const listed: DemoMarketState[] = [];
  for (const schedule of THEME_SCHEDULES) {
    for (;;) {
      const k = state.cursors[schedule.theme] ?? 0;
      const listedAt = scheduledListing(start, schedule, k, jitterOf(state.seed, schedule.theme, k));
      if (listedAt.getTime() > t.getTime()) break;
      state.cursors[schedule.theme] = k + 1;
      if (schedule.listUntilDay !== null && listedAt.getTime() > start.getTime() + schedule.listUntilDay * MS_PER_DAY)
        continue;
      for (const spec of schedule.make(eventContext(state, state.seed, start, schedule.theme, k, listedAt)))
        listed.push(marketState(state.seed, spec));
    }
  }
  for (;;) {
    const n = state.cursors[LADDER.eventKey] ?? 1;
    const day = n * LADDER.newStrikeEveryDays;
    if (day > LADDER.lastNewStrikeDay || start.getTime() + day * MS_PER_DAY > t.getTime()) break;
    state.cursors[LADDER.eventKey] = n + 1;
    const spot = Math.exp(factorValue(state, "btc"));
    const taken = new Set(
      state.markets
        .filter((m) => m.eventKey === LADDER.eventKey && m.model.kind === "factor")
        .map((m) => Math.round(Math.exp((m.model as { strike: number }).strike))),
    );
    let strike = Math.round(spot / 5_000) * 5_000;
    for (let step = 1; taken.has(strike); step++) strike += (step % 2 === 1 ? 1 : -1) * step * 5_000;
    listed.push(marketState(state.seed, ladderMarket(state.seed, start, strike, t)));
  }
  state.markets.push(...listed);
  return listed;
}

/** Generates the next hour in place and returns what it produced. */
export function advanceDemoState(state: DemoState): DemoHour {
  const start = new Date(state.start);
  const hour = state.hour + 1;
  const t = hourAt(start, hour);
  state.hour = hour;
  if (hour > 0) {
    for (const f of Object.values(state.factors)) {
      const rng = new Rng(f.rng);
      f.x += f.sigmaPerDay * Math.sqrt(HOUR_DAYS) * rng.normal();
      f.rng = rng.state;
    }
  }
  listDue(state, t, start);
  for (const event of state.events) stepEvent(state, event, hour, t);
  const legP = new Map(state.events.map((e) => [e.eventKey, partitionProbabilities(state, e, t)]));
  const episodes = new Map(state.events.map((e) => [e.eventKey, e]));

  const kept: DemoMarketState[] = [];
  for (const m of state.markets) {
    if (m.resolved && m.resolvedHour !== null && hour - m.resolvedHour >= KEEP_RESOLVED_HOURS) continue;
    kept.push(m);
    const rng = new Rng(m.rng);
    if (m.model.kind === "latent" && hour > 0 && !m.resolved) m.model.x += Math.sqrt(HOUR_DAYS) * rng.normal();
    if (!m.resolved && t.getTime() >= new Date(m.settlementAt).getTime()) {
      m.resolved = true;
      m.outcome = outcomeOf(state, m);
      m.resolvedAt = t.toISOString();
      m.resolvedHour = hour;
    }
    let snap: DemoSnapshotJson | null;
    if (m.resolved) snap = resolvedSnapshot(t, m.outcome as 0 | 1);
    else if (hour < m.darkUntilHour) snap = null;
    else if (m.last !== null && rng.chance(m.quote.darkRate)) {
      m.darkUntilHour = hour + rng.int(m.quote.darkHours[0], m.quote.darkHours[1]);
      snap = null;
    } else {
      const event = m.model.kind === "leg" ? episodes.get(m.model.eventKey) : undefined;
      snap = quoteSnapshot(rng, t, fairProbability(state, m, t, legP), m.quote, event);
    }
    m.rng = rng.state;
    if (snap !== null) m.last = snap;
  }
  state.markets = kept;
  return describeHour(state);
}

/** The current hour of a state: what was observed at its time, the latest books and the universe. */
export function describeHour(state: DemoState): DemoHour {
  const t = hourAt(new Date(state.start), state.hour);
  const markets = state.markets;
  const latest = markets.filter((m) => m.last !== null).map((m) => toSnapshot(m, m.last as DemoSnapshotJson));
  const observed = latest.filter((s) => s.observedAt.getTime() === t.getTime());
  const universe = markets.filter((m) => new Date(m.listedAt).getTime() <= t.getTime()).map(toInfo);
  const listedNow = universe.filter((m) => m.listedAt.getTime() > t.getTime() - MS_PER_HOUR);
  const resolvedNow = markets.filter((m) => m.resolvedHour === state.hour).map(toInfo);
  return { t, observed, latest, universe, listedNow, resolvedNow };
}

function build(state: DemoState): DemoMarket {
  const seed = state.seed;
  const start = new Date(state.start);
  let working = structuredClone(state);
  let current: DemoHour | null = null;
  const hourIndex = (t: Date) => Math.floor((t.getTime() - start.getTime()) / MS_PER_HOUR);
  const market: DemoMarket = {
    seed,
    start,
    cursor: () => (working.hour < 0 ? null : hourAt(start, working.hour)),
    advance: () => {
      current = advanceDemoState(working);
      return current;
    },
    hourAt: (t) => {
      const target = hourIndex(t);
      if (target < 0) throw new RangeError(`${t.toISOString()} is before the demo start ${start.toISOString()}`);
      if (working.hour === target) return current ?? (current = describeHour(working));
      if (target < working.hour) {
        working = initialDemoState(seed, start);
        current = null;
      }
      while (working.hour < target) current = advanceDemoState(working);
      return current as DemoHour;
    },
    snapshotsAt: (t) => market.hourAt(t).observed,
    state: () => structuredClone(working),
  };
  return market;
}

/** A deterministic demo market: the same seed and start always give the same feed. */
export function createDemoMarket(options: DemoOptions): DemoMarket {
  const start = floorHour(options.start);
  return build(initialDemoState(options.seed, start));
}

/** Continues a demo market from a persisted state (e.g. after a server restart). */
export function resumeDemoMarket(state: DemoState): DemoMarket {
  if (state.version !== 1) throw new RangeError(`unsupported demo state version ${String(state.version)}`);
  return build(state);
}
