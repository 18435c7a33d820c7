import type { IndexDefinition, IndexState, MarketInfo, Snapshot } from "@/lib/engine/types";
import { latestSnapshots, stepIndex } from "@/lib/engine/index-level";
import { everyLeg, legsInForce } from "@/lib/engine/volatility/legs";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { LegWindow, VolSeriesDefinition, VolState, VolTick } from "@/lib/engine/volatility/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { EligibilityRule, MaturityType } from "@/lib/engine/types";
import type { VolGates } from "@/lib/engine/volatility/types";
import { matchesRule } from "@/lib/engine/eligibility";
import { updateRowsExact } from "@/lib/db/exact-json";
import { sha256Hex } from "@/lib/engine/sha256";

/** Everything the engine keeps between hours, per index and per series (by ticker). */
export interface EngineStates {
  indices: Map<string, IndexState | null>;
  series: Map<string, VolState | null>;
}

export interface CompositionRow {
  indexId: string;
  version: string;
  effectiveAt: Date;
  members: { conditionId: string; label: string; targetWeight: string }[];
}

/** What one hour produced, as database rows. */
export interface HourOutput {
  levels: Prisma.IndexLevelCreateManyInput[];
  ticks: Prisma.VolatilityTickCreateManyInput[];
  compositions: CompositionRow[];
  reconstitutions: Prisma.ReconstitutionEventCreateManyInput[];
}

/** A series as the engine computes it: its definition and, once removed from the catalog, when it ceased. */
export type EngineSeries = VolSeriesDefinition & { ceasedAt?: Date | null };

export interface EngineCatalog {
  indices: readonly IndexDefinition[];
  series: readonly EngineSeries[];
  /** venue feeds: an index is not incepted before some market of its universe is priced */
  deferEmptyInception?: boolean;
  indexIds: ReadonlyMap<string, string>;
  seriesIds: ReadonlyMap<string, string>;
  /** by ticker: the first hour computed from live book reads (hours before it are back-calculated) */
  launches?: ReadonlyMap<string, Date>;
  /** tickers whose back-calculation has not run yet: nothing is computed for them until it has */
  pending?: ReadonlySet<string>;
}

export type Basis = "live" | "back-calculated" | "history-filled";

/**
 * What a value rests on: before the entry's launch it is back-calculated; after it, a value that
 * used a price from the venue's history (an hour the collector missed) is history-filled.
 */
export function basisOf(launch: Date | undefined, t: Date, usedHistory: boolean): Basis {
  if (launch !== undefined && t < launch) return "back-calculated";
  return usedHistory ? "history-filled" : "live";
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

/**
 * A chain link's event id, named by its index and hour (one link per index per hour): a UUID made
 * from the SHA-256 of `ticker|completedAt` (version and variant bits set as for a name-based UUID),
 * so the same history computed in any number of chunks publishes the same ids (bundles byte-identical).
 */
export function linkEventId(ticker: string, completedAt: Date | string): string {
  const h = sha256Hex(`${ticker}|${new Date(completedAt).toISOString()}`);
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function tickRow(seriesId: string, tick: VolTick): Prisma.VolatilityTickCreateManyInput {
  return {
    seriesId,
    computedAt: tick.computedAt,
    headlinePts: tick.headlinePts,
    headlineTenorDays: tick.headlineTenorDays,
    tenors: json(tick.tenors),
    bandLoPts: tick.bandLoPts,
    bandHiPts: tick.bandHiPts,
    attrDeltaHeadlinePts: tick.attrDeltaHeadlinePts,
    attribution: json(tick.attribution),
    budgetW: tick.budgetW,
    wTilde: tick.wTilde,
    effectiveN: tick.effectiveN,
    sumRaw: tick.sumRaw,
    fbvRPts: tick.fbvRPts,
    fbvRLabel: tick.fbvRLabel,
    status: tick.status,
    publicationState: tick.publicationState,
    revision: tick.revision,
    gateFlags: json(tick.gateFlags),
    components: json(tick.components),
    counterfactual: json(tick.counterfactual),
    labels: json(tick.labels),
    clockVersion: tick.clockVersion,
    devigVersion: tick.devigVersion,
    methodologyVersion: tick.methodologyVersion,
    compositionVersion: tick.compositionVersion,
    inputs: json(tick.inputs),
  };
}

/**
 * Computes one hour for every index and series of the catalog from the engine's input at t
 * (the latest snapshot per market, feed and ingested files merged) and advances `states`.
 */
export function computeHour(
  catalog: EngineCatalog,
  states: EngineStates,
  t: Date,
  latest: readonly Snapshot[],
  universe: readonly MarketInfo[],
): HourOutput {
  const out: HourOutput = { levels: [], ticks: [], compositions: [], reconstitutions: [] };
  const latestById = new Map(latest.map((s) => [s.conditionId, s]));
  // every index reads the same latest quotes at t, and only the markets its rule admits
  const snaps = latestSnapshots(latest, t);
  const fromHistory = (ids: Iterable<string>) => {
    for (const id of ids) if (latestById.get(id)?.source === "history") return true;
    return false;
  };
  for (const def of catalog.indices) {
    if (t < def.inceptionAt) continue;
    if (def.ceasedAt && t >= def.ceasedAt) continue;
    if (catalog.pending?.has(def.ticker)) continue;
    const prior = states.indices.get(def.ticker) ?? null;
    if (prior === null && catalog.deferEmptyInception && !anyPriced(def.eligibility, latest, universe)) continue;
    const indexId = catalog.indexIds.get(def.ticker);
    if (indexId === undefined) throw new Error(`index ${def.ticker} has no row`);
    const step = stepIndex(
      def,
      states.indices.get(def.ticker) ?? null,
      t,
      latest,
      universeOf(def.eligibility, universe),
      snaps,
    );
    states.indices.set(def.ticker, step.state);
    if (step.level) {
      const q = step.level.dataQuality;
      out.levels.push({
        indexId,
        t: step.level.t,
        level: step.level.indexLevel,
        revision: 0,
        stale: step.level.stale,
        compositionVersion: step.level.compositionVersion,
        freshMarketsCount: q.freshMarketsCount,
        staleMarketsCount: q.staleMarketsCount,
        totalMarketsCount: q.totalMarketsCount,
        computedAt: step.level.t,
        // plain data built afresh for this level (no copy needed); written compactly by insertLevels
        inputs: step.level.inputs as unknown as Prisma.InputJsonValue,
        basis: basisOf(
          catalog.launches?.get(def.ticker),
          t,
          fromHistory(step.level.inputs.constituents.map((c) => c.conditionId)),
        ),
      });
    }
    if (step.composition)
      out.compositions.push({
        indexId,
        version: step.composition.version,
        effectiveAt: step.composition.effectiveAt,
        members: step.composition.members,
      });
    const r = step.reconstitution;
    if (r) {
      out.reconstitutions.push({
        id: linkEventId(def.ticker, r.completedAt),
        indexId,
        completedAt: r.completedAt,
        addedMarketCount: r.addedMarketCount,
        removedMarketCount: r.removedMarketCount,
        fromVersion: r.fromVersion,
        toVersion: r.toVersion,
        levelAtLink: r.levelAtLink,
        oldBasketValue: r.oldBasketValue,
        newBasketValue: r.newBasketValue,
        linkFactor: r.linkFactor,
        detail: json({
          levelAtLinkUnrounded: r.levelAtLinkUnrounded,
          oldLinkFactor: r.oldLinkFactor,
          linkFactor: r.linkFactor,
          marketsIn: r.marketsIn,
          marketsOut: r.marketsOut,
          pricesUsed: r.pricesUsed,
        }),
      });
    }
  }
  for (const def of catalog.series) {
    if (t < def.inceptionAt || everyLeg(def).length === 0) continue;
    if (def.ceasedAt && t >= def.ceasedAt) continue;
    if (catalog.pending?.has(def.ticker)) continue;
    const seriesId = catalog.seriesIds.get(def.ticker);
    if (seriesId === undefined) throw new Error(`series ${def.ticker} has no row`);
    // Every leg the series ever had is read (the counterfactual prices the inception legs); the
    // step sees the legs in force at t.
    const legs = everyLeg(def)
      .map((id) => latestById.get(id))
      .filter((s): s is Snapshot => s !== undefined);
    const inForce = legsInForce(def, t);
    const step = stepVolatility(
      inForce === def.legs ? def : { ...def, legs: inForce },
      states.series.get(def.ticker) ?? null,
      t,
      legs,
    );
    states.series.set(def.ticker, step.state);
    if (step.tick)
      out.ticks.push({
        ...tickRow(seriesId, step.tick),
        basis: basisOf(catalog.launches?.get(def.ticker), t, fromHistory(inForce)),
      });
  }
  return out;
}

const byRule = new WeakMap<readonly MarketInfo[], Map<EligibilityRule, MarketInfo[]>>();

/** The markets of `universe` that match the rule (its static part), kept while the universe array is the same. */
function universeOf(rule: EligibilityRule, universe: readonly MarketInfo[]): MarketInfo[] {
  let cache = byRule.get(universe);
  if (cache === undefined) byRule.set(universe, (cache = new Map()));
  let mine = cache.get(rule);
  if (mine === undefined) cache.set(rule, (mine = universe.filter((m) => matchesRule(rule, m))));
  return mine;
}

/** Whether some market of the rule's universe has a snapshot at t (venue feeds incept on the first priced hour). */
function anyPriced(rule: EligibilityRule, latest: readonly Snapshot[], universe: readonly MarketInfo[]): boolean {
  const priced = new Set(latest.map((s) => s.conditionId));
  return universe.some((m) => priced.has(m.conditionId) && matchesRule(rule, m));
}

/** An index row's stored rule; rows from before the catalog carry only their theme. */
function ruleOf(row: { theme: string; eligibility: Prisma.JsonValue }): EligibilityRule {
  return (
    (row.eligibility as unknown as EligibilityRule | null) ?? {
      theme: row.theme,
      eventKeyPrefix: null,
      includePartitionLegs: false,
    }
  );
}

/**
 * The engine's catalog, read from the index and series rows (what the applied catalogs made of
 * them), and the states after the newest computed hour: one read of each table.
 */
export async function loadEngine(
  tx: Prisma.TransactionClient,
  options: { deferEmptyInception?: boolean } = {},
): Promise<{ catalog: EngineCatalog; states: EngineStates }> {
  const indexRows = await tx.index.findMany({ orderBy: { inceptionAt: "asc" } });
  const seriesRows = await tx.volatilitySeries.findMany({ orderBy: { inceptionAt: "asc" } });
  const indices: IndexDefinition[] = indexRows.map((r) => ({
    ticker: r.ticker,
    name: r.name,
    description: r.description,
    theme: r.theme,
    inceptionAt: r.inceptionAt,
    maturityType: r.maturityType as MaturityType,
    methodologyVersion: r.methodologyVersion,
    stalenessLimitSeconds: r.stalenessLimitSeconds,
    eligibility: ruleOf(r),
    listed: r.listed,
    ceasedAt: r.removedAt,
  }));
  const series: EngineSeries[] = seriesRows.map((r) => ({
    ticker: r.ticker,
    slug: r.slug,
    name: r.name,
    description: r.description,
    category: r.category,
    productFamily: r.productFamily,
    targetType: r.targetType as VolSeriesDefinition["targetType"],
    units: "probability points",
    definitionLine: r.definitionLine,
    headlineTenorDays: r.headlineTenorDays,
    tenorsDays: r.tenorsDays,
    inceptionAt: r.inceptionAt,
    settlementDate: r.settlementDate ? r.settlementDate.toISOString().slice(0, 10) : null,
    listed: r.listed,
    methodologyUrl: r.methodologyUrl,
    relatedIndexTickers: r.relatedIndexTickers,
    gates: r.gates as unknown as VolGates,
    legs: r.legConditionIds,
    legWindows: (r.legWindows as unknown as LegWindow[] | null) ?? [],
    partitionOrder: r.partitionOrder === "ordered" ? "ordered" : "unordered",
    methodologyVersion: r.methodologyVersion,
    ceasedAt: r.ceasedAt,
  }));
  const rows = [...indexRows, ...seriesRows];
  return {
    catalog: {
      indices,
      series,
      deferEmptyInception: options.deferEmptyInception,
      indexIds: new Map(indexRows.map((r) => [r.ticker, r.id])),
      seriesIds: new Map(seriesRows.map((r) => [r.ticker, r.id])),
      launches: new Map(rows.filter((r) => r.launchAt !== null).map((r) => [r.ticker, r.launchAt!])),
      pending: new Set(rows.filter((r) => awaitsBackCalculation(r)).map((r) => r.ticker)),
    },
    states: {
      indices: new Map(indexRows.map((r) => [r.ticker, (r.engineState as unknown as IndexState | null) ?? null])),
      series: new Map(seriesRows.map((r) => [r.ticker, (r.engineState as unknown as VolState | null) ?? null])),
    },
  };
}

/** An entry with a base date before its launch whose back-calculation has not run. */
export function awaitsBackCalculation(r: {
  inceptionAt: Date;
  launchAt: Date | null;
  backCalculatedAt: Date | null;
}): boolean {
  return r.launchAt !== null && r.inceptionAt < r.launchAt && r.backCalculatedAt === null;
}

/**
 * Writes the engines' final states to their index and series rows, losslessly (JSON text into
 * jsonb: Prisma's typed Json input would round the doubles the next hours build on).
 */
export async function saveStates(
  tx: Prisma.TransactionClient,
  catalog: EngineCatalog,
  states: EngineStates,
): Promise<void> {
  const indexRows = catalog.indices.flatMap((def) => {
    const state = states.indices.get(def.ticker);
    if (!state) return [];
    return [
      {
        ticker: def.ticker,
        engineState: state,
        ceasedAt: state.ceasedAt ? new Date(state.ceasedAt) : (def.ceasedAt ?? null),
        resolvedAt: state.resolvedAt ? new Date(state.resolvedAt) : null,
        seriesPartiallyResolved: state.resolvedConstituentCount > 0,
      },
    ];
  });
  await updateRowsExact(
    tx,
    "indices",
    ["ticker", "text"],
    [
      ["engineState", "jsonb"],
      ["ceasedAt", "timestamptz"],
      ["resolvedAt", "timestamptz"],
      ["seriesPartiallyResolved", "boolean"],
    ],
    indexRows,
  );
  const seriesRows = catalog.series.flatMap((def) => {
    const state = states.series.get(def.ticker);
    if (!state) return [];
    return [
      {
        ticker: def.ticker,
        engineState: state,
        inceptionConfig: state.inception,
        retiredAt: state.retiredAt ? new Date(state.retiredAt) : null,
      },
    ];
  });
  await updateRowsExact(
    tx,
    "volatility_series",
    ["ticker", "text"],
    [
      ["engineState", "jsonb"],
      ["inceptionConfig", "jsonb"],
      ["retiredAt", "timestamptz"],
    ],
    seriesRows,
  );
}
