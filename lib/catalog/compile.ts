import { sha256Hex } from "@/lib/engine/sha256";
import { canonicalJson, type JsonValue } from "@/lib/engine/canonical-json";
import { isoDate, MS_PER_DAY } from "@/lib/engine/time-format";
import type { EligibilityRule, IndexDefinition } from "@/lib/engine/types";
import type { VolGates, VolSeriesDefinition } from "@/lib/engine/volatility/types";
import type { Catalog, CatalogIndex, CatalogSeries, CatalogUniverse } from "./schema";
import { VOL_METHODOLOGY } from "@/lib/engine/volatility/methodology";

export const INDEX_METHODOLOGY_BASE = "idx-1.0";
/**
 * The volatility methodology in force: vol-2.0 prices ordered partitions by the cumulative form,
 * runs the calendar clock at a pooled prior speed and applies the one-tick floor
 * (lib/engine/volatility/methodology.ts lists the versions with their effective dates).
 */
export const VOL_METHODOLOGY_BASE = VOL_METHODOLOGY.version;

/** Tolerances of a series that states none (documented on /docs/catalog). */
export const DEFAULT_GATES: VolGates = {
  arbMinDepthUsd: 500,
  arbToleranceMin: 0.005,
  arbToleranceTicks: 1,
  depthFloorUsd: 250,
  devigTolerance: 0.02,
  identityTolerance: 0.0001,
  impactBudgetPts: 1.5,
  overroundFlagHi: 1.06,
  overroundFlagLo: 0.98,
  pythagoreanTolerancePts2: 0.01,
  retireAfterDegradedTicks: 168,
  snapshotMaxAgeSeconds: 7200,
  snapshotMaxSkewSeconds: 3600,
  spreadToMidMax: 1.0,
  suspendFailingBudgetShare: 0.25,
};

/** What the venue says about a series' event: its title, its legs (condition ids, grid order), its settlement. */
export interface VenueEvent {
  title: string;
  legs: string[];
  settlementDate: string | null;
}

export interface CompileContext {
  /** the hour `"start"` stands for */
  start: Date;
  /** events by `${venue}:${event}`, when known */
  events: ReadonlyMap<string, VenueEvent>;
}

export const eventKeyOf = (venue: string, event: string) => `${venue}:${event}`;

/** The selectors a universe answers to; a venue market carries the ones it was discovered under. */
export function universeSelectors(u: CatalogUniverse): string[] {
  switch (u.venue) {
    case "demo":
      return [];
    case "polymarket":
      return [...u.tagSlugs.map((s) => `polymarket:tag:${s}`), ...u.eventSlugs.map((s) => `polymarket:event:${s}`)];
    case "kalshi":
      return [...u.seriesTickers.map((s) => `kalshi:series:${s}`), ...u.eventTickers.map((s) => `kalshi:event:${s}`)];
  }
}

/** `{date:start+100d}` in a text becomes the date 100 days after the start's day. */
export function expandDates(text: string, start: Date): string {
  return text.replace(/\{date:start\+(\d+)d\}/g, (_, days: string) => {
    const day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    return isoDate(new Date(day + Number(days) * MS_PER_DAY));
  });
}

export function inceptionOf(value: string, start: Date): Date {
  return value === "start" ? start : new Date(value);
}

export function eligibilityRule(ix: CatalogIndex): EligibilityRule {
  const u = ix.universe;
  if (u.venue === "demo")
    return {
      theme: u.theme,
      eventKeyPrefix: u.eventKeyPrefix,
      includePartitionLegs: ix.eligibility.includePartitionLegs,
    };
  const e = ix.eligibility;
  return {
    theme: "",
    eventKeyPrefix: null,
    includePartitionLegs: e.includePartitionLegs,
    selectors: universeSelectors(u),
    minDepthUsd: e.minDepthUsd,
    maxSpread: e.maxSpread,
    minDaysToSettlement: e.minDaysToSettlement,
    maxDaysToSettlement: e.maxDaysToSettlement,
  };
}

export function compileIndex(
  ix: CatalogIndex,
  ctx: CompileContext,
  methodologyVersion = INDEX_METHODOLOGY_BASE,
): IndexDefinition {
  const rule = eligibilityRule(ix);
  return {
    ticker: ix.ticker,
    name: ix.name,
    description: expandDates(ix.description, ctx.start),
    theme: rule.theme,
    inceptionAt: inceptionOf(ix.inceptionAt, ctx.start),
    maturityType: ix.maturityType,
    methodologyVersion,
    stalenessLimitSeconds: ix.stalenessLimitSeconds,
    eligibility: rule,
    listed: ix.listed,
  };
}

export function gatesOf(s: CatalogSeries): VolGates {
  return { ...DEFAULT_GATES, ...s.gates };
}

export function definitionLineOf(name: string, title: string, legs: number, headlineTenorDays: number): string {
  return `${name}: expected movement, in probability points, of the "${title}" partition (${legs} legs) over ${headlineTenorDays} days, measured on the variance still to be realized before resolution.`;
}

export function compileSeries(
  s: CatalogSeries,
  ctx: CompileContext,
  methodologyVersion = VOL_METHODOLOGY_BASE,
): VolSeriesDefinition {
  const event = ctx.events.get(eventKeyOf(s.venue, s.event));
  return {
    ticker: s.ticker,
    slug: s.slug,
    name: s.name,
    description: s.description,
    category: s.category,
    productFamily: "PM Volatility",
    targetType: "composite-of-partition",
    units: "probability points",
    definitionLine: definitionLineOf(s.name, event?.title ?? s.event, event?.legs.length ?? 0, s.headlineTenorDays),
    headlineTenorDays: s.headlineTenorDays,
    tenorsDays: s.tenorsDays,
    inceptionAt: inceptionOf(s.inceptionAt, ctx.start),
    settlementDate: s.settlementDate ?? event?.settlementDate ?? null,
    listed: s.listed,
    // A path on this site: the read model serves it against the public base URL of the day.
    methodologyUrl: "/docs/methodology#volatility",
    relatedIndexTickers: s.relatedIndexTickers,
    gates: gatesOf(s),
    legs: event?.legs ?? [],
    partitionOrder: s.partitionOrder,
    methodologyVersion,
  };
}

/** Hash of a catalog as applied: the canonical JSON of its parsed content (formatting does not count). */
export function catalogHash(c: Catalog): string {
  return sha256Hex(canonicalJson(JSON.parse(JSON.stringify(c)) as JsonValue));
}

/** A series' version under the engine's methodology: one on an earlier major (vol-1.3) becomes the engine's base (vol-2.0). */
export function upgradeVolVersion(version: string): string {
  const major = (v: string) => Number(/^vol-(\d+)\./.exec(v)?.[1] ?? Number.NaN);
  return major(version) < major(VOL_METHODOLOGY_BASE) ? VOL_METHODOLOGY_BASE : version;
}

/** The next minor methodology version: idx-1.0 -> idx-1.1. */
export function bumpVersion(version: string): string {
  const m = /^(.*?)(\d+)\.(\d+)$/.exec(version);
  return m ? `${m[1]}${m[2]}.${Number(m[3]) + 1}` : `${version}.1`;
}
