import "server-only";
import { catalogsInForce } from "@/lib/catalog/in-force";
import crypto from "node:crypto";
import { stringify } from "csv-stringify/sync";
import { iso6 } from "@/lib/time-format";
import { config } from "@/lib/config";
import { canonicalJson, type JsonValue } from "@/lib/engine/canonical-json";
import { linkFactorOf } from "@/lib/engine/chain-link";
import { fullPrecision } from "@/lib/engine/decimal";
import type { Db } from "@/lib/db";
import { expandLevelInputs, isCompact, loadConstituentSets, type StoredLevelInputs } from "@/lib/db/level-inputs";
import type { Attribution, Component, Counterfactual, InceptionConfig, VolInputs } from "@/lib/engine/volatility/types";
import { forecastWindows } from "@/lib/engine/volatility/forecast-record";
import { loadRecordPoints } from "@/lib/db/record-points";

/**
 * Integer layout version; a change of files or columns increments it (2: price panels,
 * compositions, full-precision links; 3: legs' tenor points, per-leg attribution file,
 * counterfactual and clock increments in the volatility history; 4: `basis` of every value, launches;
 * 5: each series' inception configuration, the counterfactual's inputs; 6: the quotes of inception
 * legs no longer in force, so the counterfactual recomputes after a leg leaves; 7: the forecast
 * record, volatility_forecast_record.csv).
 */
export const SCHEMA_VERSION = 7;

export interface BundleFile {
  name: string;
  bytes: number;
  sha256: string;
  rows: number;
}

export interface MonthManifest {
  month: string;
  schemaVersion: number;
  license: string;
  attribution: string;
  generatedAt: string;
  /** the applied catalogs (rules) in force during the month, by hash */
  catalogs?: Array<{ sha256: string; appliedAt: string }>;
  /** entries with a base date before their launch: values before `launchAt` are back-calculated (schemaVersion 4) */
  launches?: Array<{ ticker: string; kind: "index" | "volatility"; baseDate: string; launchAt: string }>;
  files: BundleFile[];
}

const pad = (n: number) => String(n).padStart(2, "0");
export const monthOf = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
const monthStart = (month: string) => new Date(`${month}-01T00:00:00Z`);
const nextMonth = (month: string) => {
  const d = monthStart(month);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
};

type Cell = string | number | boolean | null;

/** Booleans are written `true` / `false`, null as an empty cell, numbers in JavaScript's shortest round-trip form. */
function csv(header: string[], rows: Cell[][]): { content: Buffer; rows: number } {
  const cell = (v: Cell) =>
    v === null ? "" : typeof v === "boolean" ? (v ? "true" : "false") : typeof v === "number" ? String(v) : v;
  const text = stringify([header, ...rows.map((r) => r.map(cell))], { record_delimiter: "\r\n" });
  return { content: Buffer.from(text, "utf8"), rows: rows.length };
}

/** The inputs the engine stored beside a tick (lib/ingest/engine-hour.ts), as it wrote them. */
type StoredVolInputs = VolInputs;

const isoOrNull = (s: string | null) => (s === null ? null : iso6(new Date(s)));

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
/** JSON text for a CSV cell, every timestamp in it written like the bundle's own (microseconds and Z). */
function jsonCell(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "string" && ISO_MS.test(v) ? iso6(new Date(v)) : v));
}

/** Markets back-calculated from history coarser than hourly (a resolved Polymarket market: 12-hour points), with its minutes. */
async function coarseMarkets(prisma: Db): Promise<Map<string, number>> {
  const rows = await prisma.market.findMany({
    where: { historyFidelityMinutes: { not: null } },
    select: { conditionId: true, historyFidelityMinutes: true },
  });
  return new Map(rows.map((m) => [m.conditionId, m.historyFidelityMinutes!]));
}

/**
 * `history_fidelity_minutes` of an hour: empty when every price it used was hourly (or a book
 * read); otherwise the coarsest fidelity among its constituents' history (720: a resolved
 * Polymarket market's 12-hour point carried to the hour, content/docs/methodology/recomputing.mdx).
 */
function historyFidelity(
  l: { basis: string; inputs: { constituents: ReadonlyArray<{ conditionId: string }> } | null },
  coarse: ReadonlyMap<string, number>,
): number | null {
  if (l.basis === "live" || coarse.size === 0) return null;
  const minutes = (l.inputs?.constituents ?? []).map((c) => coarse.get(c.conditionId) ?? 0);
  const most = Math.max(0, ...minutes);
  return most > 0 ? most : null;
}

type MonthFile = { name: string; content: Buffer; rows: number };

/** The files of one closed month: levels and their price panel, compositions, weights, chain links, volatility and its leg panel, restatements. */
async function monthFiles(prisma: Db, month: string): Promise<MonthFile[]> {
  const from = monthStart(month);
  const to = nextMonth(month);
  return [
    ...(await indexFiles(prisma, from, to)),
    ...(await volatilityFiles(prisma, from, to)),
    ...(await restatementFiles(prisma, from, to)),
  ];
}

/** The index files of [from, to): levels, constituent prices, compositions, members, target weights, chain links. */
async function indexFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
  const stored = await prisma.$queryRaw<
    Array<{
      ticker: string;
      indexId: string;
      t: Date;
      level: string;
      revision: number;
      stale: boolean;
      cv: string;
      inputs: StoredLevelInputs | null;
      basis: string;
    }>
  >`
    SELECT i.ticker, l."indexId"::text AS "indexId", l.t, l.level::text AS level, l.revision, l.stale, l."compositionVersion" AS cv, l.inputs, l.basis
    FROM index_levels l JOIN indices i ON i.id = l."indexId"
    WHERE l.t >= ${from} AND l.t < ${to} ORDER BY i.ticker, l.t`;
  // levels written in the compact form name their constituent set; older rows hold the full inputs
  const sets = await loadConstituentSets(
    prisma,
    new Set(stored.flatMap((l) => (l.inputs && isCompact(l.inputs) ? [l.inputs.set] : []))),
  );
  const levels = stored.map((l) => ({
    ...l,
    inputs: l.inputs === null ? null : expandLevelInputs(l.inputs, l.indexId, l.t, sets),
  }));
  const coarse = await coarseMarkets(prisma);
  // Point in time: every composition in force at some moment of the month (one replaced at the
  // month's first hour still priced that hour).
  const compositions = await prisma.$queryRaw<
    Array<{ ticker: string; version: string; effective: Date; cond: string; label: string; weight: string }>
  >`
    SELECT i.ticker, c.version, c."effectiveAt" AS effective, m."conditionId" AS cond, m.label, m."targetWeight"::text AS weight
    FROM compositions c JOIN indices i ON i.id = c."indexId" JOIN composition_members m ON m."compositionId" = c.id
    WHERE c."effectiveAt" < ${to} AND NOT EXISTS (
      SELECT 1 FROM compositions n WHERE n."indexId" = c."indexId" AND n."effectiveAt" > c."effectiveAt" AND n."effectiveAt" < ${from})
    ORDER BY i.ticker, c."effectiveAt", m."conditionId"`;
  const links = await prisma.$queryRaw<
    Array<{
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
    }>
  >`
    SELECT i.ticker, r.id::text AS id, r."completedAt" AS at, r."fromVersion" AS "fromV", r."toVersion" AS "toV", r."addedMarketCount" AS added,
      r."removedMarketCount" AS removed, r."levelAtLink"::text AS level, r."oldBasketValue"::text AS "oldB", r."newBasketValue"::text AS "newB",
      r."linkFactor"::text AS factor, r.detail
    FROM reconstitution_events r JOIN indices i ON i.id = r."indexId"
    WHERE r."completedAt" >= ${from} AND r."completedAt" < ${to} ORDER BY i.ticker, r."completedAt"`;
  // Each composition in force: its base (unrounded level and basket value at its start), from the
  // levels it priced and from the link that started it.
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
  const compositionRows = [...bases.values()]
    .filter((b) => effectiveAt.has(`${b.ticker}|${b.version}`))
    .sort((a, b) =>
      a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : versionNumber(a.version) - versionNumber(b.version),
    )
    .map((b) => {
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

  return [
    {
      name: "index_levels.csv",
      ...csv(
        [
          "ticker",
          "t",
          "index_level",
          "revision",
          "stale",
          "composition_version",
          "pricing_composition_version",
          "history_fidelity_minutes",
          "basis",
        ],
        levels.map((l) => [
          l.ticker,
          iso6(l.t),
          l.level,
          l.revision,
          l.stale,
          l.cv,
          l.inputs?.pricingVersion ?? null,
          historyFidelity(l, coarse),
          l.basis,
        ]),
      ),
    },
    {
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
    },
    {
      name: "compositions.csv",
      ...csv(
        ["ticker", "composition_version", "effective_at", "base_level", "base_basket_value", "link_factor"],
        compositionRows,
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
    {
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
    },
  ];
}

/** The volatility files of [from, to): series, inception, history, legs, counterfactual legs, attribution, forecast record. */
async function volatilityFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
  const series = await prisma.volatilitySeries.findMany({
    where: { listed: true },
    orderBy: { ticker: "asc" },
    select: {
      ticker: true,
      headlineTenorDays: true,
      tenorsDays: true,
      gates: true,
      inceptionConfig: true,
      partitionOrder: true,
    },
  });
  const ticks = await prisma.$queryRaw<
    Array<{
      ticker: string;
      t: Date;
      h: number;
      tenor: number;
      lo: number;
      hi: number;
      r: number;
      status: string;
      pub: string;
      rev: number;
      tenors: Record<string, { pts: number; share: number; share_ci: [number, number] | null }>;
      mv: string;
      cv: string;
      clv: string;
      delta: number;
      labels: { attrDeltaFrom?: string | null; attrDeltaFromPublished?: boolean | null };
      flags: Array<{ gate: string }>;
      inputs: StoredVolInputs | null;
      attribution: Attribution;
      counterfactual: Counterfactual;
      components: Component[];
      basis: string;
    }>
  >`
    SELECT s.ticker, v."computedAt" AS t, v."headlinePts" AS h, v."headlineTenorDays" AS tenor, v."bandLoPts" AS lo, v."bandHiPts" AS hi,
      v."fbvRPts" AS r, v.status, v."publicationState" AS pub, v.revision AS rev, v.tenors, v."methodologyVersion" AS mv, v."compositionVersion" AS cv,
      v."clockVersion" AS clv, v."attrDeltaHeadlinePts" AS delta, v.labels, v."gateFlags" AS flags, v.inputs, v.attribution, v.counterfactual, v.components, v.basis
    FROM volatility_ticks v JOIN volatility_series s ON s.id = v."seriesId"
    WHERE s.listed AND v."computedAt" >= ${from} AND v."computedAt" < ${to} ORDER BY s.ticker, v."computedAt"`;
  const record = await forecastRecordRows(prisma, from, to);
  return [
    {
      name: "volatility_series.csv",
      ...csv(
        ["ticker", "headline_tenor_days", "tenors_days_json", "gates_json", "partition_order"],
        series.map((x) => [
          x.ticker,
          x.headlineTenorDays,
          JSON.stringify(x.tenorsDays),
          JSON.stringify(x.gates),
          x.partitionOrder,
        ]),
      ),
    },
    {
      // the frozen configuration each counterfactual recomputes against: sha256(config_json) is its anchorFingerprint
      name: "volatility_inception.csv",
      ...csv(
        ["ticker", "anchor_at", "anchor_fingerprint", "config_json"],
        series.flatMap((x) => {
          const inception = x.inceptionConfig as { config?: InceptionConfig; fingerprint?: string } | null;
          if (!inception?.config || !inception.fingerprint || new Date(inception.config.anchorAt) >= to) return [];
          return [
            [
              x.ticker,
              iso6(new Date(inception.config.anchorAt)),
              inception.fingerprint,
              canonicalJson(inception.config as unknown as JsonValue),
            ],
          ];
        }),
      ),
    },
    {
      name: "volatility_history.csv",
      ...csv(
        [
          "ticker",
          "t",
          "headline_pts",
          "headline_tenor_days",
          "band_lo_pts",
          "band_hi_pts",
          "fbv_r_pts",
          "status",
          "publication_state",
          "revision",
          "methodology_version",
          "composition_version",
          "clock_version",
          "attr_delta_headline_pts",
          "attr_delta_from",
          "attr_delta_from_published",
          "gate_names_json",
          "tenor_pts_json",
          "tenors_json",
          "clock_json",
          "attr_delta_pts2",
          "attr_status",
          "clock_increment_realized",
          "clock_increment_predicted",
          "counterfactual_json",
          "basis",
        ],
        ticks.map((v) => [
          v.ticker,
          iso6(v.t),
          v.h,
          v.tenor,
          v.lo,
          v.hi,
          v.r,
          v.status,
          v.pub,
          v.rev,
          v.mv,
          v.cv,
          v.clv,
          v.delta,
          v.labels.attrDeltaFrom ?? null,
          v.labels.attrDeltaFromPublished ?? null,
          JSON.stringify([...new Set(v.flags.map((f) => f.gate))]),
          JSON.stringify(Object.fromEntries(Object.entries(v.tenors).map(([k, x]) => [k, x.pts]))),
          JSON.stringify(v.tenors),
          JSON.stringify(v.inputs?.clock ?? null),
          v.attribution.deltaPts2,
          v.attribution.status,
          v.inputs?.clockIncrement?.realized ?? null,
          v.inputs?.clockIncrement?.predicted ?? null,
          jsonCell(v.counterfactual),
          v.basis,
        ]),
      ),
    },
    {
      name: "volatility_legs.csv",
      ...csv(
        [
          "ticker",
          "t",
          "grid_order",
          "condition_id",
          "leg_key",
          "label",
          "bid",
          "ask",
          "mid",
          "depth_usd",
          "observed_at",
          "settlement_at",
          "days_to_settlement",
          "resolved",
          "p",
          "w",
          "tenor_pts_json",
          "source",
        ],
        ticks.flatMap((v) => {
          const published = new Map(v.components.map((c) => [c.condition_id, c.tenor_pts]));
          return (v.inputs?.legs ?? []).map((g) => [
            v.ticker,
            iso6(v.t),
            g.gridOrder,
            g.conditionId,
            g.legKey,
            g.label,
            g.bid,
            g.ask,
            g.mid,
            g.depthUsd,
            isoOrNull(g.observedAt),
            isoOrNull(g.settlementAt),
            g.daysToSettlement,
            g.resolved,
            g.p,
            g.w,
            JSON.stringify(published.get(g.conditionId) ?? null),
            g.source ?? "book",
          ]);
        }),
      ),
    },
    {
      // the inception legs no longer in force, as the counterfactual priced them: with the leg panel, its every input
      name: "volatility_counterfactual_legs.csv",
      ...csv(
        [
          "ticker",
          "t",
          "condition_id",
          "leg_key",
          "label",
          "bid",
          "ask",
          "mid",
          "depth_usd",
          "observed_at",
          "settlement_at",
          "days_to_settlement",
          "resolved",
          "source",
        ],
        ticks.flatMap((v) =>
          (v.inputs?.counterfactualLegs ?? []).map((g) => [
            v.ticker,
            iso6(v.t),
            g.conditionId,
            g.legKey,
            g.label,
            g.bid,
            g.ask,
            g.mid,
            g.depthUsd,
            isoOrNull(g.observedAt),
            isoOrNull(g.settlementAt),
            g.daysToSettlement,
            g.resolved,
            g.source ?? "book",
          ]),
        ),
      ),
    },
    {
      name: "volatility_attribution.csv",
      ...csv(
        ["ticker", "t", "tenor_days", "grid_order", "leg_key", "label", "delta_price", "delta_clock", "delta"],
        ticks.flatMap((v) =>
          v.attribution.legs.map((a) => [
            v.ticker,
            iso6(v.t),
            v.attribution.tenorDays,
            a.gridOrder,
            a.legKey,
            a.label,
            a.deltaPrice,
            a.deltaClock,
            a.delta,
          ]),
        ),
      ),
    },
    {
      // every window of every tenor that closed during the month: expected move at its start, realized move over it
      name: "volatility_forecast_record.csv",
      ...csv(["ticker", "tenor_days", "window_start", "window_end", "expected_pts", "realized_pts"], record),
    },
  ];
}

/** Corrections made during the month, with the value each one superseded (the restatement policy). */
async function restatementFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
  const restatements = await prisma.restatement.findMany({
    where: { restatedAt: { gte: from, lt: to } },
    orderBy: [{ restatedAt: "asc" }, { kind: "asc" }, { ticker: "asc" }, { t: "asc" }],
  });

  return [
    {
      name: "restatements.csv",
      ...csv(
        ["restated_at", "kind", "ticker", "t", "revision", "previous_value", "value", "reason", "detail_json"],
        restatements.map((r) => {
          const { reason, ...detail } = (r.detail ?? {}) as { reason?: string };
          return [
            iso6(r.restatedAt),
            r.kind,
            r.ticker,
            iso6(r.t),
            r.revision,
            r.previous,
            r.value,
            reason ?? "corrected or late market snapshot",
            jsonCell(detail),
          ];
        }),
      ),
    },
  ];
}

const MS_DAY = 86_400_000;

/** The forecast record's windows that closed in [from, to), by ticker, tenor and start (lib/engine/volatility/forecast-record.ts). */
async function forecastRecordRows(prisma: Db, from: Date, to: Date): Promise<Cell[][]> {
  const tenors = await prisma.volatilitySeries.findMany({ where: { listed: true }, select: { tenorsDays: true } });
  const longest = Math.max(0, ...tenors.flatMap((x) => x.tenorsDays));
  const rows: Cell[][] = [];
  for (const s of await loadRecordPoints(prisma, new Date(from.getTime() - longest * MS_DAY), to)) {
    for (const w of forecastWindows(s.points, s.tenorsDays)) {
      if (w.endMs < from.getTime()) continue;
      rows.push([
        s.ticker,
        w.tenorDays,
        iso6(new Date(w.startMs)),
        iso6(new Date(w.endMs)),
        w.expectedPts,
        w.realizedPts,
      ]);
    }
  }
  return rows;
}

/** Entries back-calculated into the month or before it: their base date and launch. */
async function launchesOf(prisma: Db, monthFrom: Date): Promise<NonNullable<MonthManifest["launches"]>> {
  const rows = [
    ...(
      await prisma.index.findMany({
        where: { launchAt: { not: null } },
        select: { ticker: true, inceptionAt: true, launchAt: true },
      })
    ).map((r) => ({ ...r, kind: "index" as const })),
    ...(
      await prisma.volatilitySeries.findMany({
        where: { launchAt: { not: null } },
        select: { ticker: true, inceptionAt: true, launchAt: true },
      })
    ).map((r) => ({ ...r, kind: "volatility" as const })),
  ];
  return rows
    .filter((r) => r.launchAt! > r.inceptionAt && r.inceptionAt < nextMonth(monthOf(monthFrom)))
    .sort((a, b) => (a.ticker < b.ticker ? -1 : 1))
    .map((r) => ({ ticker: r.ticker, kind: r.kind, baseDate: iso6(r.inceptionAt), launchAt: iso6(r.launchAt!) }));
}

/**
 * Builds the bundle of every closed month since inception that has none yet. With `finalUntil`,
 * only the months that end by then (every value of the month final: lib/ingest/final-bundles.ts);
 * the first closed month that does not waits for a later run (named in `waiting`). Returns the months built.
 */
export async function buildMissingBundles(
  prisma: Db,
  now = new Date(),
  options: { finalUntil?: Date; waiting?: string[] } = {},
): Promise<string[]> {
  const first = await prisma.indexLevel.findFirst({ orderBy: { t: "asc" }, select: { t: true } });
  if (!first) return [];
  const current = monthOf(now);
  const existing = new Set((await prisma.snapshotBundle.findMany({ select: { month: true } })).map((b) => b.month));
  const built: string[] = [];
  const c = config();
  for (let m = monthOf(first.t); m < current; m = monthOf(nextMonth(m))) {
    if (existing.has(m)) continue;
    if (options.finalUntil && nextMonth(m) > options.finalUntil) {
      options.waiting?.push(m);
      break;
    }
    const files = await monthFiles(prisma, m);
    const entries: BundleFile[] = files.map((f) => ({
      name: f.name,
      bytes: f.content.length,
      sha256: crypto.createHash("sha256").update(f.content).digest("hex"),
      rows: f.rows,
    }));
    const catalogs = await catalogsInForce(prisma, monthStart(m), nextMonth(m));
    const launches = await launchesOf(prisma, monthStart(m));
    const manifest: MonthManifest = {
      month: m,
      schemaVersion: SCHEMA_VERSION,
      license: c.licenseUrl,
      attribution: c.ATTRIBUTION,
      generatedAt: iso6(new Date()),
      catalogs,
      ...(launches.length ? { launches } : {}),
      files: entries,
    };
    await prisma.snapshotBundle
      .create({
        data: {
          month: m,
          generatedAt: new Date(),
          manifest: JSON.parse(JSON.stringify(manifest)),
          files: {
            create: files.map((f, i) => ({
              name: f.name,
              content: f.content.toString("utf8"),
              sha256: entries[i]!.sha256,
              rows: f.rows,
              bytes: f.content.length,
            })),
          },
        },
      })
      .catch((error: { code?: string }) => {
        // another instance built the same month first: bundles are immutable, keep theirs
        if (error.code !== "P2002") throw error;
      });
    built.push(m);
  }
  return built;
}
