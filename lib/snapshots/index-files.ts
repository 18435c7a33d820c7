import "server-only";
import { iso6 } from "@/lib/time-format";
import { linkFactorOf } from "@/lib/engine/chain-link";
import { fullPrecision } from "@/lib/engine/decimal";
import type { Db } from "@/lib/db";
import { expandLevelInputs, isCompact, loadConstituentSets, type StoredLevelInputs } from "@/lib/db/level-inputs";
import type { LevelInputs } from "@/lib/engine/types";
import { coarseMarkets, csv, historyFidelity, jsonCell, type Cell, type MonthFile } from "@/lib/snapshots/bundle-csv";

type Level = {
  ticker: string;
  indexId: string;
  t: Date;
  level: string;
  revision: number;
  stale: boolean;
  cv: string;
  inputs: LevelInputs | null;
  basis: string;
};
type CompositionMember = {
  ticker: string;
  version: string;
  effective: Date;
  cond: string;
  label: string;
  weight: string;
};
type Link = {
  ticker: string;
  id: string;
  at: Date;
  fromV: string;
  toV: string;
  added: number;
  removed: number;
  level: string;
  oldB: string;
  newB: string;
  factor: string;
  detail: {
    oldLinkFactor?: string;
    linkFactor?: string;
    levelAtLinkUnrounded?: string;
    marketsIn?: unknown[];
    marketsOut?: unknown[];
    pricesUsed?: unknown[];
  };
};

/** The index files of [from, to): levels, constituent prices, compositions, members, target weights, chain links. */
export async function indexFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
  const levels = await loadLevels(prisma, from, to);
  const coarse = await coarseMarkets(prisma);
  const compositions = await loadCompositions(prisma, from, to);
  const links = await loadLinks(prisma, from, to);
  return [
    levelsFile(levels, coarse),
    constituentPricesFile(levels),
    {
      name: "compositions.csv",
      ...csv(
        ["ticker", "composition_version", "effective_at", "base_level", "base_basket_value", "link_factor"],
        compositionRows(levels, compositions, links),
      ),
    },
    {
      name: "composition_members.csv",
      ...csv(
        ["ticker", "composition_version", "effective_at", "condition_id", "label"],
        compositions.map((c) => [c.ticker, c.version, iso6(c.effective), c.cond, c.label]),
      ),
    },
    {
      name: "target_weights.csv",
      ...csv(
        ["ticker", "composition_version", "condition_id", "target_weight"],
        compositions.map((c) => [c.ticker, c.version, c.cond, c.weight]),
      ),
    },
    chainLinksFile(links),
  ];
}

/** The levels of [from, to) with their inputs in full (a compact row names its constituent set). */
async function loadLevels(prisma: Db, from: Date, to: Date): Promise<Level[]> {
  const stored = await prisma.$queryRaw<Array<Omit<Level, "inputs"> & { inputs: StoredLevelInputs | null }>>`
    SELECT i.ticker, l."indexId"::text AS "indexId", l.t, l.level::text AS level, l.revision, l.stale, l."compositionVersion" AS cv, l.inputs, l.basis
    FROM index_levels l JOIN indices i ON i.id = l."indexId"
    WHERE l.t >= ${from} AND l.t < ${to} ORDER BY i.ticker, l.t`;
  // levels written in the compact form name their constituent set; older rows hold the full inputs
  const sets = await loadConstituentSets(
    prisma,
    new Set(stored.flatMap((l) => (l.inputs && isCompact(l.inputs) ? [l.inputs.set] : []))),
  );
  return stored.map((l) => ({
    ...l,
    inputs: l.inputs === null ? null : expandLevelInputs(l.inputs, l.indexId, l.t, sets),
  }));
}

/**
 * Point in time: every composition in force at some moment of the month (one replaced at the
 * month's first hour still priced that hour), one row per member.
 */
function loadCompositions(prisma: Db, from: Date, to: Date): Promise<CompositionMember[]> {
  return prisma.$queryRaw<CompositionMember[]>`
    SELECT i.ticker, c.version, c."effectiveAt" AS effective, m."conditionId" AS cond, m.label, m."targetWeight"::text AS weight
    FROM compositions c JOIN indices i ON i.id = c."indexId" JOIN composition_members m ON m."compositionId" = c.id
    WHERE c."effectiveAt" < ${to} AND NOT EXISTS (
      SELECT 1 FROM compositions n WHERE n."indexId" = c."indexId" AND n."effectiveAt" > c."effectiveAt" AND n."effectiveAt" < ${from})
    ORDER BY i.ticker, c."effectiveAt", m."conditionId"`;
}

/** The reconstitutions completed in [from, to). */
function loadLinks(prisma: Db, from: Date, to: Date): Promise<Link[]> {
  return prisma.$queryRaw<Link[]>`
    SELECT i.ticker, r.id::text AS id, r."completedAt" AS at, r."fromVersion" AS "fromV", r."toVersion" AS "toV", r."addedMarketCount" AS added,
      r."removedMarketCount" AS removed, r."levelAtLink"::text AS level, r."oldBasketValue"::text AS "oldB", r."newBasketValue"::text AS "newB",
      r."linkFactor"::text AS factor, r.detail
    FROM reconstitution_events r JOIN indices i ON i.id = r."indexId"
    WHERE r."completedAt" >= ${from} AND r."completedAt" < ${to} ORDER BY i.ticker, r."completedAt"`;
}

/**
 * Each composition in force: its base (unrounded level and basket value at its start), from the
 * levels it priced and from the link that started it, with its link factor.
 */
function compositionRows(levels: readonly Level[], compositions: readonly CompositionMember[], links: readonly Link[]) {
  const effectiveAt = new Map(compositions.map((c) => [`${c.ticker}|${c.version}`, c.effective]));
  const bases = new Map<string, { ticker: string; version: string; baseLevel: string; baseBasket: string }>();
  for (const l of levels) {
    if (l.inputs === null) continue;
    const k = `${l.ticker}|${l.inputs.pricingVersion}`;
    if (!bases.has(k))
      bases.set(k, {
        ticker: l.ticker,
        version: l.inputs.pricingVersion,
        baseLevel: l.inputs.baseLevel,
        baseBasket: l.inputs.baseBasketValue,
      });
  }
  for (const l of links) {
    const k = `${l.ticker}|${l.toV}`;
    if (!bases.has(k) && l.detail?.levelAtLinkUnrounded !== undefined)
      bases.set(k, { ticker: l.ticker, version: l.toV, baseLevel: l.detail.levelAtLinkUnrounded, baseBasket: l.newB });
  }
  const versionNumber = (v: string) => Number(v.replace(/^v/, ""));
  return [...bases.values()]
    .filter((b) => effectiveAt.has(`${b.ticker}|${b.version}`))
    .sort((a, b) =>
      a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : versionNumber(a.version) - versionNumber(b.version),
    )
    .map((b): Cell[] => {
      const factor = fullPrecision(linkFactorOf(b.baseLevel, b.baseBasket));
      return [
        b.ticker,
        b.version,
        iso6(effectiveAt.get(`${b.ticker}|${b.version}`) as Date),
        b.baseLevel,
        b.baseBasket,
        factor,
      ];
    });
}

/** The columns of index_levels.csv, in order. */
export const INDEX_LEVELS_COLUMNS = [
  "ticker",
  "t",
  "index_level",
  "revision",
  "stale",
  "composition_version",
  "pricing_composition_version",
  "history_fidelity_minutes",
  "basis",
] as const;

/** index_levels.csv: every hourly level, the composition that priced it, its history fidelity and basis. */
function levelsFile(levels: readonly Level[], coarse: ReadonlyMap<string, number>): MonthFile {
  return {
    name: "index_levels.csv",
    ...csv(
      INDEX_LEVELS_COLUMNS,
      levels.map((l) => [
        l.ticker,
        iso6(l.t),
        l.level,
        l.revision,
        l.stale,
        l.cv,
        l.inputs?.pricingVersion ?? null,
        historyFidelity(
          l.basis,
          (l.inputs?.constituents ?? []).map((c) => c.conditionId),
          coarse,
        ),
        l.basis,
      ]),
    ),
  };
}

/** constituent_prices.csv: the price panel, every constituent's price used at every hour. */
function constituentPricesFile(levels: readonly Level[]): MonthFile {
  return {
    name: "constituent_prices.csv",
    ...csv(
      ["ticker", "t", "condition_id", "price", "price_source", "observed_at", "stale"],
      levels.flatMap((l) =>
        (l.inputs?.constituents ?? []).map((c) => [
          l.ticker,
          iso6(l.t),
          c.conditionId,
          c.price,
          c.source,
          iso6(new Date(c.observedAt)),
          c.stale,
        ]),
      ),
    ),
  };
}

/** chain_links.csv: the arithmetic of every reconstitution. */
function chainLinksFile(links: readonly Link[]): MonthFile {
  return {
    name: "chain_links.csv",
    ...csv(
      [
        "ticker",
        "event_id",
        "completed_at",
        "from_version",
        "to_version",
        "added_market_count",
        "removed_market_count",
        "level_at_link",
        "level_at_link_unrounded",
        "old_basket_value",
        "new_basket_value",
        "old_link_factor",
        "new_link_factor",
        "markets_out_json",
        "markets_in_json",
        "prices_used_json",
      ],
      links.map((l) => [
        l.ticker,
        l.id,
        iso6(l.at),
        l.fromV,
        l.toV,
        l.added,
        l.removed,
        l.level,
        l.detail?.levelAtLinkUnrounded ?? null,
        l.oldB,
        l.newB,
        l.detail?.oldLinkFactor ?? null,
        l.detail?.linkFactor ?? l.factor,
        jsonCell(l.detail?.marketsOut ?? []),
        jsonCell(l.detail?.marketsIn ?? []),
        jsonCell(l.detail?.pricesUsed ?? []),
      ]),
    ),
  };
}
