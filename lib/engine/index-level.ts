import type Decimal from "decimal.js";
import { BASE_LEVEL, basketValue, chainLevel, equalWeight, linkFactorOf } from "./chain-link";
import { dec, fullPrecision, publishLevel } from "./decimal";
import { isoTime } from "./time-format";
import { canEnter, matchesRule } from "./eligibility";
import type {
  CompositionRecord,
  ConstituentPrice,
  DataQuality,
  IndexDefinition,
  IndexMember,
  IndexPublicStatus,
  IndexState,
  IndexStepResult,
  LevelInputs,
  LevelPoint,
  LinkPrice,
  MarketInfo,
  ReconstitutionRecord,
  Snapshot,
} from "./types";

interface PricedMember {
  member: IndexMember;
  price: Decimal;
  observedAt: Date;
  resolved: boolean;
  outcome: 0 | 1 | null;
  fresh: boolean;
}

/** Composition versions are `v1`, `v2`, ... in order of effect. */
export function compositionVersionName(n: number): string {
  return `v${n}`;
}

/** Latest snapshot per market at or before t (later ones are ignored, never used). */
export function latestSnapshots(snapshots: readonly Snapshot[], t: Date): Map<string, Snapshot> {
  const byId = new Map<string, Snapshot>();
  for (const s of snapshots) {
    if (s.observedAt.getTime() > t.getTime()) continue;
    const seen = byId.get(s.conditionId);
    if (seen === undefined || seen.observedAt.getTime() < s.observedAt.getTime()) byId.set(s.conditionId, s);
  }
  return byId;
}

/** Index price of a market: its 0/1 settlement once resolved, else the YES mid clamped to [0, 1]. */
export function marketPrice(snapshot: Snapshot): Decimal {
  if (snapshot.resolved && snapshot.outcome !== null) return dec(snapshot.outcome);
  const mid = dec(snapshot.mid);
  return mid.lessThan(0) ? dec(0) : mid.greaterThan(1) ? dec(1) : mid;
}

function isFresh(observedAt: Date, t: Date, limitSeconds: number): boolean {
  return t.getTime() - observedAt.getTime() <= limitSeconds * 1000;
}

function priceMember(member: IndexMember, snapshot: Snapshot | undefined, t: Date, limitSeconds: number): PricedMember {
  if (snapshot === undefined) {
    const observedAt = new Date(member.lastObservedAt);
    return {
      member,
      price: dec(member.lastPrice),
      observedAt,
      resolved: false,
      outcome: null,
      fresh: isFresh(observedAt, t, limitSeconds),
    };
  }
  const resolved = snapshot.resolved && snapshot.outcome !== null;
  return {
    member,
    price: marketPrice(snapshot),
    observedAt: snapshot.observedAt,
    resolved,
    outcome: resolved ? snapshot.outcome : null,
    // a settled price is final, so a resolved constituent never makes the index stale
    fresh: resolved || isFresh(snapshot.observedAt, t, limitSeconds),
  };
}

function toMember(market: MarketInfo, snapshot: Snapshot): IndexMember {
  return {
    conditionId: market.conditionId,
    label: market.label,
    weight: equalWeight(),
    lastPrice: fullPrecision(marketPrice(snapshot)),
    lastObservedAt: isoTime(snapshot.observedAt),
  };
}

function refreshed(p: PricedMember): IndexMember {
  return { ...p.member, lastPrice: fullPrecision(p.price), lastObservedAt: isoTime(p.observedAt) };
}

function quality(fresh: readonly boolean[]): DataQuality {
  const total = fresh.length;
  const freshCount = fresh.filter(Boolean).length;
  return {
    freshDataPct: total === 0 ? 0 : Math.round((freshCount / total) * 10_000) / 100,
    freshMarketsCount: freshCount,
    staleMarketsCount: total - freshCount,
    totalMarketsCount: total,
  };
}

function constituentPrice(p: PricedMember): ConstituentPrice {
  return {
    conditionId: p.member.conditionId,
    price: fullPrecision(p.price),
    source: p.resolved ? "settlement" : "mid",
    observedAt: isoTime(p.observedAt),
    stale: !p.fresh,
  };
}

function entrantPrice(e: { market: MarketInfo; snapshot: Snapshot }, t: Date, limitSeconds: number): ConstituentPrice {
  const resolved = e.snapshot.resolved && e.snapshot.outcome !== null;
  return {
    conditionId: e.market.conditionId,
    price: fullPrecision(marketPrice(e.snapshot)),
    source: resolved ? "settlement" : "mid",
    observedAt: isoTime(e.snapshot.observedAt),
    stale: !isFresh(e.snapshot.observedAt, t, limitSeconds),
  };
}

function levelPoint(
  t: Date,
  level: Decimal,
  basket: Decimal,
  version: string,
  fresh: readonly boolean[],
  inputs: LevelInputs,
): LevelPoint {
  const dq = quality(fresh);
  return {
    inputs,
    t,
    indexLevel: publishLevel(level),
    indexLevelUnrounded: fullPrecision(level),
    basketValue: fullPrecision(basket),
    stale: dq.staleMarketsCount > 0,
    compositionVersion: version,
    dataQuality: dq,
  };
}

function compositionRecord(
  version: string,
  t: Date,
  members: readonly IndexMember[],
  basket: Decimal,
  level: Decimal,
): CompositionRecord {
  return {
    version,
    effectiveAt: t,
    members: members.map((m) => ({ conditionId: m.conditionId, label: m.label, targetWeight: m.weight })),
    baseBasketValue: fullPrecision(basket),
    baseLevel: fullPrecision(level),
  };
}

/** Eligible entrants at t, oldest listing first; falls back to stale quotes only to avoid an empty basket. */
function findEntrants(
  def: IndexDefinition,
  universe: readonly MarketInfo[],
  snaps: Map<string, Snapshot>,
  t: Date,
  exclude: ReadonlySet<string>,
  mustFill: boolean,
): { market: MarketInfo; snapshot: Snapshot }[] {
  const pick = (limitSeconds: number) =>
    universe
      .filter((m) => !exclude.has(m.conditionId))
      .map((market) => ({ market, snapshot: snaps.get(market.conditionId) }))
      .filter(
        (e): e is { market: MarketInfo; snapshot: Snapshot } =>
          canEnter(def.eligibility, e.market, e.snapshot, t, limitSeconds) && marketPrice(e.snapshot).greaterThan(0),
      )
      .sort(
        (a, b) =>
          a.market.listedAt.getTime() - b.market.listedAt.getTime() ||
          (a.market.conditionId < b.market.conditionId ? -1 : 1),
      );
  const fresh = pick(def.stalenessLimitSeconds);
  return fresh.length > 0 || !mustFill ? fresh : pick(Number.POSITIVE_INFINITY);
}

function incept(
  def: IndexDefinition,
  t: Date,
  snaps: Map<string, Snapshot>,
  universe: readonly MarketInfo[],
): IndexStepResult {
  const entrants = findEntrants(def, universe, snaps, t, new Set(), true);
  const members = entrants.map((e) => toMember(e.market, e.snapshot));
  const basket = basketValue(members.map((m) => ({ weight: m.weight, price: m.lastPrice })));
  const base = dec(BASE_LEVEL);
  const version = compositionVersionName(1);
  const state: IndexState = {
    ticker: def.ticker,
    inceptionAt: isoTime(def.inceptionAt),
    compositionVersion: version,
    compositionNumber: 1,
    compositionEffectiveAt: isoTime(t),
    members,
    linkLevel: fullPrecision(base),
    linkBasket: fullPrecision(basket),
    linkFactor: basket.isZero() ? "0" : fullPrecision(linkFactorOf(base, basket)),
    lastLevel: publishLevel(base),
    lastLevelUnrounded: fullPrecision(base),
    lastComputedAt: isoTime(t),
    lastStale: false,
    ceasedAt: null,
    resolvedAt: null,
    resolvedConstituentCount: 0,
    reconstitutionCount: 0,
  };
  if (members.length === 0 || basket.isZero()) {
    // nothing eligible to price at inception: the index ceases before its first level
    return {
      state: { ...state, members: [], ceasedAt: isoTime(t), lastLevel: null, lastLevelUnrounded: null },
      level: null,
      reconstitution: null,
      composition: null,
    };
  }
  const fresh = entrants.map((e) => isFresh(e.snapshot.observedAt, t, def.stalenessLimitSeconds));
  const level = levelPoint(t, base, basket, version, fresh, {
    pricingVersion: version,
    baseLevel: fullPrecision(base),
    baseBasketValue: fullPrecision(basket),
    constituents: entrants.map((e) => entrantPrice(e, t, def.stalenessLimitSeconds)),
  });
  return {
    state: { ...state, lastStale: level.stale },
    level,
    reconstitution: null,
    composition: compositionRecord(version, t, members, basket, base),
  };
}

/**
 * Advances one index to time t. `snapshots` holds the latest snapshot per market at or before t
 * (older ones are fine); `universe` the markets listed by t. Resolved constituents are marked at
 * their 0/1 settlement in the level at t and leave at the link taken at t; new eligible markets
 * enter at the same link. The level at a link is identical under the old and the new composition.
 */
export function stepIndex(
  def: IndexDefinition,
  state: IndexState | null,
  t: Date,
  snapshots: readonly Snapshot[],
  universe: readonly MarketInfo[],
  /** latestSnapshots(snapshots, t), when the caller already has it (one per hour for every index) */
  latest?: Map<string, Snapshot>,
): IndexStepResult {
  const snaps = latest ?? latestSnapshots(snapshots, t);
  if (state === null) {
    if (t.getTime() < def.inceptionAt.getTime())
      throw new RangeError(`${def.ticker}: first step ${isoTime(t)} precedes inception`);
    return incept(def, t, snaps, universe);
  }
  if (state.ceasedAt !== null || state.resolvedAt !== null)
    return { state, level: null, reconstitution: null, composition: null };
  if (state.lastComputedAt !== null && t.getTime() <= new Date(state.lastComputedAt).getTime()) {
    throw new RangeError(`${def.ticker}: step ${isoTime(t)} is not after ${state.lastComputedAt}`);
  }
  const hour = priceHour(def, state, t, snaps, universe);
  if (hour.leaving.length === 0 && hour.entrants.length === 0) return unchangedComposition(hour);
  const newMembers = [...hour.kept.map(refreshed), ...hour.entrants.map((e) => toMember(e.market, e.snapshot))];
  const newBasket = basketValue(newMembers.map((m) => ({ weight: m.weight, price: m.lastPrice })));
  if (newMembers.length === 0 || newBasket.isZero()) return lastLevel(def, hour);
  return reconstitute(hour, newMembers, newBasket);
}

/** An hour priced under the composition in force: its level, who leaves and who enters, the state carried on. */
interface PricedHour {
  state: IndexState;
  t: Date;
  limit: number;
  priced: PricedMember[];
  oldBasket: Decimal;
  level: Decimal;
  leaving: PricedMember[];
  kept: PricedMember[];
  entrants: Array<{ market: MarketInfo; snapshot: Snapshot }>;
  /** the level's inputs: the constituents' prices, with or without the entrants' */
  pricedInputs: (withEntrants: boolean) => LevelInputs;
  /** the state with the hour's level */
  base: IndexState;
}

/** Prices the members in force at t, chains the level, and finds the leaving (resolved) members and the entrants. */
function priceHour(
  def: IndexDefinition,
  state: IndexState,
  t: Date,
  snaps: Map<string, Snapshot>,
  universe: readonly MarketInfo[],
): PricedHour {
  const limit = def.stalenessLimitSeconds;
  const priced = state.members.map((m) => priceMember(m, snaps.get(m.conditionId), t, limit));
  const oldBasket = basketValue(priced.map((p) => ({ weight: p.member.weight, price: p.price })));
  const level = chainLevel(state.linkLevel, oldBasket, state.linkBasket);
  const leaving = priced.filter((p) => p.resolved);
  const kept = priced.filter((p) => !p.resolved);
  const memberIds = new Set(state.members.map((m) => m.conditionId));
  const entrants = findEntrants(def, universe, snaps, t, memberIds, kept.length === 0);
  const pricedInputs = (withEntrants: boolean): LevelInputs => ({
    pricingVersion: state.compositionVersion,
    baseLevel: state.linkLevel,
    baseBasketValue: state.linkBasket,
    constituents: [
      ...priced.map(constituentPrice),
      ...(withEntrants ? entrants.map((e) => entrantPrice(e, t, limit)) : []),
    ],
  });
  const base: IndexState = {
    ...state,
    lastLevel: publishLevel(level),
    lastLevelUnrounded: fullPrecision(level),
    lastComputedAt: isoTime(t),
  };
  return { state, t, limit, priced, oldBasket, level, leaving, kept, entrants, pricedInputs, base };
}

/** No member leaves and none enters: the level under the composition in force. */
function unchangedComposition(h: PricedHour): IndexStepResult {
  const point = levelPoint(
    h.t,
    h.level,
    h.oldBasket,
    h.state.compositionVersion,
    h.priced.map((p) => p.fresh),
    h.pricedInputs(false),
  );
  return {
    state: { ...h.base, members: h.priced.map(refreshed), lastStale: point.stale },
    level: point,
    reconstitution: null,
    composition: null,
  };
}

/** The universe is empty: a DATED index has resolved, a PERPETUAL one ceases; this is its last level. */
function lastLevel(def: IndexDefinition, h: PricedHour): IndexStepResult {
  const point = levelPoint(
    h.t,
    h.level,
    h.oldBasket,
    h.state.compositionVersion,
    h.priced.map((p) => p.fresh),
    h.pricedInputs(false),
  );
  const end = isoTime(h.t);
  const allResolved = h.kept.length === 0;
  const finalState: IndexState = {
    ...h.base,
    members: h.priced.map(refreshed),
    lastStale: point.stale,
    resolvedConstituentCount: h.state.resolvedConstituentCount + h.leaving.length,
    resolvedAt: def.maturityType === "DATED" && allResolved ? end : null,
    ceasedAt: def.maturityType === "DATED" && allResolved ? null : end,
  };
  return { state: finalState, level: point, reconstitution: null, composition: null };
}

/** Members leave or enter: a chain link at t, the level identical under the old and the new composition. */
function reconstitute(h: PricedHour, newMembers: IndexMember[], newBasket: Decimal): IndexStepResult {
  const { state, t, level, oldBasket, priced, entrants, leaving } = h;
  const number = state.compositionNumber + 1;
  const version = compositionVersionName(number);
  const factor = linkFactorOf(level, newBasket);
  const record = reconstitutionRecord({
    state,
    t,
    level,
    oldBasket,
    newBasket,
    factor,
    version,
    priced,
    entrants,
    leaving,
  });
  const fresh = [...h.kept.map((p) => p.fresh), ...entrants.map((e) => isFresh(e.snapshot.observedAt, t, h.limit))];
  const point = levelPoint(t, level, newBasket, version, fresh, h.pricedInputs(true));
  const nextState: IndexState = {
    ...h.base,
    compositionVersion: version,
    compositionNumber: number,
    compositionEffectiveAt: isoTime(t),
    members: newMembers,
    linkLevel: fullPrecision(level),
    linkBasket: fullPrecision(newBasket),
    linkFactor: fullPrecision(factor),
    lastStale: point.stale,
    resolvedConstituentCount: state.resolvedConstituentCount + leaving.length,
    reconstitutionCount: state.reconstitutionCount + 1,
  };
  return {
    state: nextState,
    level: point,
    reconstitution: record,
    composition: compositionRecord(version, t, newMembers, newBasket, level),
  };
}

/** The record of a reconstitution at t: the link's level, baskets and factor, who left, who entered, the prices used. */
function reconstitutionRecord(link: {
  state: IndexState;
  t: Date;
  level: Decimal;
  oldBasket: Decimal;
  newBasket: Decimal;
  factor: Decimal;
  version: string;
  priced: ReturnType<typeof priceMember>[];
  entrants: ReturnType<typeof findEntrants>;
  leaving: ReturnType<typeof priceMember>[];
}): ReconstitutionRecord {
  const { state, t, level, oldBasket, newBasket, factor, version, priced, entrants, leaving } = link;
  return {
    completedAt: t,
    addedMarketCount: entrants.length,
    removedMarketCount: leaving.length,
    fromVersion: state.compositionVersion,
    toVersion: version,
    levelAtLink: publishLevel(level),
    levelAtLinkUnrounded: fullPrecision(level),
    oldBasketValue: fullPrecision(oldBasket),
    newBasketValue: fullPrecision(newBasket),
    oldLinkFactor: state.linkFactor,
    linkFactor: fullPrecision(factor),
    marketsIn: entrants.map((e) => ({
      conditionId: e.market.conditionId,
      label: e.market.label,
      weight: equalWeight(),
      price: fullPrecision(marketPrice(e.snapshot)),
    })),
    marketsOut: leaving.map((p) => ({
      conditionId: p.member.conditionId,
      label: p.member.label,
      weight: p.member.weight,
      price: fullPrecision(p.price),
      reason: "resolved",
      outcome: p.outcome,
    })),
    pricesUsed: [
      ...priced.map((p): LinkPrice => ({
        conditionId: p.member.conditionId,
        label: p.member.label,
        price: fullPrecision(p.price),
        observedAt: isoTime(p.observedAt),
        role: p.resolved ? "out" : "kept",
      })),
      ...entrants.map((e): LinkPrice => ({
        conditionId: e.market.conditionId,
        label: e.market.label,
        price: fullPrecision(marketPrice(e.snapshot)),
        observedAt: isoTime(e.snapshot.observedAt),
        role: "in",
      })),
    ],
  };
}

/** Publication facts the latest-level and catalog endpoints need, derived from state alone. */
export function indexStatus(state: IndexState): {
  publicStatus: IndexPublicStatus;
  ceasedAt: string | null;
  resolvedAt: string | null;
  stale: boolean;
  seriesFullyResolved: boolean;
  seriesPartiallyResolved: boolean;
} {
  const fully = state.resolvedAt !== null;
  return {
    publicStatus: state.ceasedAt !== null ? "ceased" : fully ? "resolved" : "active",
    ceasedAt: state.ceasedAt,
    resolvedAt: state.resolvedAt,
    stale: state.lastStale,
    seriesFullyResolved: fully,
    seriesPartiallyResolved: !fully && state.resolvedConstituentCount > 0,
  };
}

/** True when a market could ever belong to the index (static rule only). */
export function isInIndexUniverse(def: IndexDefinition, market: MarketInfo): boolean {
  return matchesRule(def.eligibility, market);
}
