import "server-only";
import { iso6 } from "@/lib/time-format";
import { canonicalJson, type JsonValue } from "@/lib/engine/canonical-json";
import type { Db } from "@/lib/db";
import type { Attribution, Component, Counterfactual, InceptionConfig, VolInputs } from "@/lib/engine/volatility/types";
import { forecastWindows } from "@/lib/engine/volatility/forecast-record";
import { loadRecordPoints } from "@/lib/db/record-points";
import {
  coarseMarkets,
  csv,
  historyFidelityOfLeg,
  isoOrNull,
  jsonCell,
  type Cell,
  type MonthFile,
} from "@/lib/snapshots/bundle-csv";

type Series = {
  ticker: string;
  headlineTenorDays: number;
  tenorsDays: number[];
  gates: unknown;
  inceptionConfig: unknown;
  partitionOrder: string;
};

/** A stored computation with the inputs the engine stored beside it (lib/ingest/engine-hour.ts), as it wrote them. */
type Tick = {
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
  inputs: VolInputs | null;
  attribution: Attribution;
  counterfactual: Counterfactual;
  components: Component[];
  basis: string;
};

/** The volatility files of [from, to): series, inception, history, legs, counterfactual legs, attribution, forecast record. */
export async function volatilityFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
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
  const ticks = await loadTicks(prisma, from, to);
  const record = await forecastRecordRows(prisma, from, to);
  const coarse = await coarseMarkets(prisma);
  return [
    seriesFile(series),
    inceptionFile(series, to),
    historyFile(ticks, coarse),
    legsFile(ticks, coarse),
    counterfactualLegsFile(ticks),
    attributionFile(ticks),
    {
      // every window of every tenor that closed during the month: expected move at its start, realized move over it
      name: "volatility_forecast_record.csv",
      ...csv(["ticker", "tenor_days", "window_start", "window_end", "expected_pts", "realized_pts"], record),
    },
  ];
}

/** The computations of the listed series in [from, to), by ticker and hour. */
function loadTicks(prisma: Db, from: Date, to: Date): Promise<Tick[]> {
  return prisma.$queryRaw<Tick[]>`
    SELECT s.ticker, v."computedAt" AS t, v."headlinePts" AS h, v."headlineTenorDays" AS tenor, v."bandLoPts" AS lo, v."bandHiPts" AS hi,
      v."fbvRPts" AS r, v.status, v."publicationState" AS pub, v.revision AS rev, v.tenors, v."methodologyVersion" AS mv, v."compositionVersion" AS cv,
      v."clockVersion" AS clv, v."attrDeltaHeadlinePts" AS delta, v.labels, v."gateFlags" AS flags, v.inputs, v.attribution, v.counterfactual, v.components, v.basis
    FROM volatility_ticks v JOIN volatility_series s ON s.id = v."seriesId"
    WHERE s.listed AND v."computedAt" >= ${from} AND v."computedAt" < ${to} ORDER BY s.ticker, v."computedAt"`;
}

/** volatility_series.csv: each listed series' tenors, gates and partition order. */
function seriesFile(series: readonly Series[]): MonthFile {
  return {
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
  };
}

/** volatility_inception.csv: the frozen configuration each counterfactual recomputes against (sha256(config_json) is its anchorFingerprint). */
function inceptionFile(series: readonly Series[], to: Date): MonthFile {
  return {
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
  };
}

/**
 * `history_fidelity_minutes` of a computation: the coarsest fidelity among its legs quoted from a
 * history coarser than hourly (720: a resolved Polymarket market's 12-hour points); empty otherwise.
 */
function tickFidelity(v: Tick, coarse: ReadonlyMap<string, number>): number | null {
  const minutes = (v.inputs?.legs ?? []).map((g) => historyFidelityOfLeg(v.basis, g, coarse) ?? 0);
  const most = Math.max(0, ...minutes);
  return most > 0 ? most : null;
}

/** The columns of volatility_history.csv, in order. */
export const VOLATILITY_HISTORY_COLUMNS = [
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
  "history_fidelity_minutes",
  "basis",
] as const;

/** volatility_history.csv: every hourly computation, its versions, gates, tenors, clock, attribution and basis. */
function historyFile(ticks: readonly Tick[], coarse: ReadonlyMap<string, number>): MonthFile {
  return {
    name: "volatility_history.csv",
    ...csv(
      VOLATILITY_HISTORY_COLUMNS,
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
        tickFidelity(v, coarse),
        v.basis,
      ]),
    ),
  };
}

/** The columns of volatility_legs.csv, in order. */
export const VOLATILITY_LEGS_COLUMNS = [
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
  "history_fidelity_minutes",
] as const;

/** volatility_legs.csv: the leg panel, per computation and leg its quote, p, w, tenor points, source and history fidelity. */
function legsFile(ticks: readonly Tick[], coarse: ReadonlyMap<string, number>): MonthFile {
  return {
    name: "volatility_legs.csv",
    ...csv(
      VOLATILITY_LEGS_COLUMNS,
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
          historyFidelityOfLeg(v.basis, g, coarse),
        ]);
      }),
    ),
  };
}

/** volatility_counterfactual_legs.csv: the inception legs no longer in force, as the counterfactual priced them. */
function counterfactualLegsFile(ticks: readonly Tick[]): MonthFile {
  return {
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
  };
}

/** volatility_attribution.csv: every computation's per-leg price and clock parts. */
function attributionFile(ticks: readonly Tick[]): MonthFile {
  return {
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
  };
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
