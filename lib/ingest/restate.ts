import "server-only";
import Decimal from "decimal.js";
import type { Prisma } from "@/lib/generated/prisma/client";
import {
  checkpointBefore,
  checkpointOf,
  isCheckpointHour,
  RESTATEMENT_LOOKBACK_DAYS,
  writeCheckpoints,
  type CheckpointRow,
} from "@/lib/ingest/checkpoints";
import { createDemoMarket, resumeDemoMarket, type DemoState } from "@/lib/ingest/demo-market";
import { isStoredFeedState, loadStoredMarkets, StoredFeed, type EngineFeed } from "@/lib/ingest/stored-feed";
import { computeHour, loadEngine, saveStates, type CompositionRow, type EngineStates } from "@/lib/ingest/engine-hour";
import { ceilHour, floorHour, MS_PER_DAY, nextHour } from "@/lib/engine/time-format";
import { insertCompositions, insertLevels, insertTicks } from "@/lib/ingest/engine-runner";
import { loadOverlay } from "@/lib/ingest/snapshot-overlay";
import { compactLevelRows } from "@/lib/db/level-inputs";
import { CURRENT_CORRECTIONS, ENGINE_CORRECTIONS } from "@/lib/ingest/corrections";

type Tx = Prisma.TransactionClient;

/** The methodology page's materiality thresholds: a published value moves by more than this, or it stays. */
export const LEVEL_MATERIALITY = new Decimal("0.01");
export const VOLATILITY_MATERIALITY_PTS = 0.1;

export interface RestateResult {
  /** first hour recomputed, null when nothing published was affected */
  fromHour: Date | null;
  hours: number;
  levelsRestated: number;
  ticksRestated: number;
  /** values that did not exist before (an index or series that now publishes at that hour) */
  added: number;
  /** reconstitution links and compositions rewritten with the corrected arithmetic */
  linksRewritten: number;
}

export const NOTHING_RESTATED: RestateResult = {
  fromHour: null,
  hours: 0,
  levelsRestated: 0,
  ticksRestated: 0,
  added: 0,
  linksRewritten: 0,
};

const key = (id: string, t: Date) => `${id}|${t.toISOString()}`;

/** A published tick as far as materiality reads it. */
export type StoredTick = {
  gateFlags?: Prisma.JsonValue;
  headlinePts: number;
  bandLoPts: number;
  bandHiPts: number;
  fbvRPts: number;
  status: string;
  publicationState: string;
  tenors: Prisma.JsonValue;
  revision: number;
};

function pts(tenors: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (tenors && typeof tenors === "object")
    for (const [k, v] of Object.entries(tenors as Record<string, { pts?: unknown }>))
      if (typeof v?.pts === "number") out.set(k, v.pts);
  return out;
}

/** The distinct gates a tick failed, sorted. */
export function gateNames(flags: unknown): string[] {
  return Array.isArray(flags) ? [...new Set(flags.map((f) => String((f as { gate?: unknown })?.gate)))].sort() : [];
}

/** A volatility value is restated when its gate decision (status, publication state, the gates failed) changed or any of its points moved by more than the threshold. */
export function tickIsMaterial(stored: StoredTick, next: Prisma.VolatilityTickCreateManyInput): boolean {
  if (stored.status !== next.status || stored.publicationState !== next.publicationState) return true;
  if (stored.gateFlags !== undefined && gateNames(stored.gateFlags).join() !== gateNames(next.gateFlags).join())
    return true;
  const moved = (a: number, b: number) => Math.abs(a - b) > VOLATILITY_MATERIALITY_PTS;
  if (
    moved(stored.headlinePts, next.headlinePts) ||
    moved(stored.bandLoPts, next.bandLoPts) ||
    moved(stored.bandHiPts, next.bandHiPts) ||
    moved(stored.fbvRPts, next.fbvRPts)
  )
    return true;
  const a = pts(stored.tenors);
  const b = pts(next.tenors);
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k);
    const y = b.get(k);
    if (x === undefined || y === undefined || moved(x, y)) return true;
  }
  return false;
}

export function levelIsMaterial(stored: Prisma.Decimal | string, next: string): boolean {
  return new Decimal(stored.toString()).minus(next).abs().greaterThan(LEVEL_MATERIALITY);
}

export interface RestateOptions {
  now: Date;
  /** an engine correction: restate over the whole stored history, not only the look-back */
  wholeHistory?: boolean;
  /** why the values are restated, kept in each restatement record (a corrected or late snapshot when absent) */
  reason?: string;
}

/**
 * Recomputes every hour from the first one a corrected or late snapshot can affect up to the
 * newest computed hour, from the last checkpoint before it, with ingested snapshots laid over the
 * feed. A published value that moves by more than the materiality threshold within the look-back
 * is replaced with its `revision` incremented; smaller moves are corrected going forward only
 * (the engine's states carry the corrected inputs). Runs inside the caller's transaction, which
 * must hold the engine lock.
 */
export async function restate(tx: Tx, earliest: Date, options: RestateOptions): Promise<RestateResult> {
  const engine = await tx.engineState.findUnique({ where: { id: 1 } });
  if (!engine?.demoState) return NOTHING_RESTATED;
  const last = engine.lastTickAt;
  const lookback = options.wholeHistory
    ? earliest
    : new Date(floorHour(options.now).getTime() - RESTATEMENT_LOOKBACK_DAYS * MS_PER_DAY);
  const from = new Date(Math.max(ceilHour(earliest).getTime(), lookback.getTime()));
  if (from > last) return NOTHING_RESTATED; // not computed yet: the next tick reads it

  const { market, states, checkpoint, stored } = await startingPoint(tx, engine.demoState, from);
  const { catalog } = await loadEngine(tx, { deferEmptyInception: stored });
  const firstHour = checkpoint ? nextHour(checkpoint.t) : market.start;
  const overlay = await loadOverlay(tx, firstHour, last);
  const changes = newChanges(await storedValues(tx, from), catalog, options);
  const result: RestateResult = { ...NOTHING_RESTATED, fromHour: from };
  for (let t = firstHour; t <= last; t = nextHour(t)) {
    const hour = market.advance();
    const out = computeHour(catalog, states, hour.t, overlay.apply(hour.t, hour.latest, hour.universe), hour.universe);
    if (hour.t < from) continue;
    result.hours += 1;
    if (isCheckpointHour(hour.t, last)) changes.checkpoints.push(checkpointOf(hour.t, market.state(), states));
    compareHour(changes, out);
  }
  const { restatedLevels, restatedTicks, newLevels, newTicks } = changes;
  await writeChanges(tx, changes);
  result.linksRewritten = await rewriteLinks(tx, from, changes.compositions, changes.links);
  await writeCheckpoints(tx, changes.checkpoints, last);
  await saveStates(tx, catalog, states);
  result.levelsRestated = restatedLevels.length;
  result.ticksRestated = restatedTicks.length;
  result.added = newLevels.length + newTicks.length;
  return result;
}

/** The feed and the engine's states to recompute from: the last checkpoint before `from`, else the start. */
async function startingPoint(tx: Tx, demoState: NonNullable<Prisma.JsonValue>, from: Date) {
  const stored = isStoredFeedState(demoState);
  const checkpoint = await checkpointBefore(tx, from);
  const markets = stored ? await loadStoredMarkets(tx) : [];
  const feedState = demoState as unknown as DemoState;
  let market: EngineFeed;
  let states: EngineStates;
  if (checkpoint) {
    market = isStoredFeedState(checkpoint.demo)
      ? new StoredFeed(new Date(checkpoint.demo.start), checkpoint.t, markets)
      : resumeDemoMarket(checkpoint.demo);
    states = checkpoint.states;
  } else {
    market = isStoredFeedState(demoState)
      ? new StoredFeed(new Date(demoState.start), null, markets)
      : createDemoMarket({ seed: feedState.seed, start: new Date(feedState.start) });
    states = { indices: new Map(), series: new Map() };
  }
  return { market, states, checkpoint, stored };
}

/** The published levels and ticks from `from` on, by owner and hour. */
async function storedValues(tx: Tx, from: Date) {
  const storedLevels = new Map(
    (
      await tx.indexLevel.findMany({
        where: { t: { gte: from } },
        select: {
          indexId: true,
          t: true,
          level: true,
          revision: true,
          stale: true,
          compositionVersion: true,
          computedAt: true,
          basis: true,
        },
      })
    ).map((l) => [key(l.indexId, l.t), l]),
  );
  const storedTicks = new Map(
    (
      await tx.volatilityTick.findMany({
        where: { computedAt: { gte: from } },
        select: {
          seriesId: true,
          computedAt: true,
          gateFlags: true,
          headlinePts: true,
          bandLoPts: true,
          bandHiPts: true,
          fbvRPts: true,
          status: true,
          publicationState: true,
          tenors: true,
          revision: true,
        },
      })
    ).map((x) => [key(x.seriesId, x.computedAt), x]),
  );

  return { storedLevels, storedTicks };
}

type HourOut = ReturnType<typeof computeHour>;

/** What a restatement changes, gathered hour by hour and written at the end. */
function newChanges(
  stored: Awaited<ReturnType<typeof storedValues>>,
  catalog: Awaited<ReturnType<typeof loadEngine>>["catalog"],
  options: RestateOptions,
) {
  const records: Prisma.RestatementCreateManyInput[] = [];
  const computedAt = options.now;
  const tickerOf = new Map([...catalog.indexIds, ...catalog.seriesIds].map(([ticker, id]) => [id, ticker]));
  /** Keeps the superseded value beside the corrected one; `detail.revision` is the superseded revision. */
  const reason = options.reason ?? "corrected or late market snapshot";
  const record = (
    kind: "index_level" | "volatility",
    ownerId: string,
    t: Date,
    previous: string,
    value: string,
    detail: Prisma.InputJsonObject & { revision: number },
  ) =>
    records.push({
      restatedAt: computedAt,
      kind,
      ticker: tickerOf.get(ownerId) ?? ownerId,
      t,
      revision: detail.revision + 1,
      previous,
      value,
      detail: { ...detail, reason },
    });
  return {
    ...stored,
    computedAt,
    record,
    records,
    restatedLevels: [] as Prisma.IndexLevelCreateManyInput[],
    reflagged: [] as Prisma.IndexLevelCreateManyInput[],
    newLevels: [] as Prisma.IndexLevelCreateManyInput[],
    restatedTicks: [] as Prisma.VolatilityTickCreateManyInput[],
    newTicks: [] as Prisma.VolatilityTickCreateManyInput[],
    compositions: [] as CompositionRow[],
    links: [] as Prisma.ReconstitutionEventCreateManyInput[],
    checkpoints: [] as CheckpointRow[],
  };
}

type Changes = ReturnType<typeof newChanges>;

/** One recomputed hour against what was published: new, restated (material), reflagged or unchanged. */
function compareHour(changes: Changes, out: HourOut): void {
  const {
    storedLevels,
    storedTicks,
    newLevels,
    restatedLevels,
    reflagged,
    newTicks,
    restatedTicks,
    record,
    computedAt,
  } = changes;
  for (const level of out.levels) {
    const stored = storedLevels.get(key(level.indexId, level.t as Date));
    if (!stored) newLevels.push(level);
    else if (levelIsMaterial(stored.level, level.level as string)) {
      restatedLevels.push({ ...level, revision: stored.revision + 1, computedAt });
      record("index_level", level.indexId, level.t as Date, stored.level.toFixed(8), level.level as string, {
        revision: stored.revision,
        stale: stored.stale,
        compositionVersion: stored.compositionVersion,
        computedAt: stored.computedAt.toISOString(),
      });
    } else if (stored.stale !== level.stale || stored.basis !== (level.basis ?? "live")) {
      // The value stands; what it rests on changed (a missed hour filled from the venue's history is no longer stale).
      reflagged.push({ ...level, revision: stored.revision, computedAt: stored.computedAt });
    }
  }
  for (const tick of out.ticks) {
    const stored = storedTicks.get(key(tick.seriesId, tick.computedAt as Date));
    if (!stored) newTicks.push(tick);
    else if (tickIsMaterial(stored, tick)) {
      restatedTicks.push({ ...tick, revision: stored.revision + 1 });
      record(
        "volatility",
        tick.seriesId,
        tick.computedAt as Date,
        String(stored.headlinePts),
        String(tick.headlinePts),
        {
          revision: stored.revision,
          status: stored.status,
          gates: gateNames(stored.gateFlags),
          publicationState: stored.publicationState,
          next: { status: tick.status, gates: gateNames(tick.gateFlags), publicationState: tick.publicationState },
          bandLoPts: stored.bandLoPts,
          bandHiPts: stored.bandHiPts,
          fbvRPts: stored.fbvRPts,
          tenors: stored.tenors ?? {},
        },
      );
    }
  }
  changes.compositions.push(...out.compositions);
  changes.links.push(...out.reconstitutions);
}

/** The restated, reflagged and new rows, and the restatement records, in the caller's transaction. */
async function writeChanges(tx: Tx, changes: Changes): Promise<void> {
  const { reflagged, restatedLevels, restatedTicks, records, newLevels, newTicks } = changes;
  if (reflagged.length) {
    await tx.$executeRawUnsafe(
      `UPDATE index_levels l SET stale = r.stale, basis = r.basis, "freshMarketsCount" = r."freshMarketsCount", "staleMarketsCount" = r."staleMarketsCount"
       FROM jsonb_to_recordset($1::jsonb) AS r("indexId" text, t timestamptz, stale boolean, basis text, "freshMarketsCount" int, "staleMarketsCount" int)
       WHERE l."indexId" = r."indexId"::uuid AND l.t = r.t`,
      JSON.stringify(
        reflagged.map((l) => ({
          indexId: l.indexId,
          t: l.t,
          stale: l.stale,
          basis: l.basis ?? "live",
          freshMarketsCount: l.freshMarketsCount,
          staleMarketsCount: l.staleMarketsCount,
        })),
      ),
    );
  }
  if (restatedLevels.length) {
    await tx.$executeRawUnsafe(
      `UPDATE index_levels l SET level = r.level, revision = r.revision, stale = r.stale, "compositionVersion" = r."compositionVersion",
         "freshMarketsCount" = r."freshMarketsCount", "staleMarketsCount" = r."staleMarketsCount", "totalMarketsCount" = r."totalMarketsCount", "computedAt" = r."computedAt", inputs = r.inputs, basis = COALESCE(r.basis, 'live')
       FROM jsonb_to_recordset($1::jsonb) AS r("indexId" text, t timestamptz, level numeric, revision int, stale boolean, "compositionVersion" text,
         "freshMarketsCount" int, "staleMarketsCount" int, "totalMarketsCount" int, "computedAt" timestamptz, inputs jsonb, basis text)
       WHERE l."indexId" = r."indexId"::uuid AND l.t = r.t`,
      JSON.stringify(await compactLevelRows(tx, restatedLevels)),
    );
  }
  if (restatedTicks.length) {
    await tx.$executeRawUnsafe(
      `DELETE FROM volatility_ticks v USING jsonb_to_recordset($1::jsonb) AS r("seriesId" text, "computedAt" timestamptz)
       WHERE v."seriesId" = r."seriesId"::uuid AND v."computedAt" = r."computedAt"`,
      JSON.stringify(restatedTicks.map((x) => ({ seriesId: x.seriesId, computedAt: x.computedAt }))),
    );
    await insertTicks(tx, restatedTicks);
  }
  if (records.length) await tx.restatement.createMany({ data: records });
  await insertLevels(tx, newLevels);
  await insertTicks(tx, newTicks);
}

/**
 * Applies the engine corrections a stored database lacks (lib/ingest/corrections.ts): recomputes
 * every stored hour and restates what changed, then records the corrections as applied. Runs
 * inside the caller's transaction, which must hold the engine lock. Null when nothing was due.
 */
export async function applyEngineCorrections(tx: Tx, now: Date): Promise<RestateResult | null> {
  const engine = await tx.engineState.findUnique({ where: { id: 1 }, select: { corrections: true, demoState: true } });
  if (!engine || engine.corrections >= CURRENT_CORRECTIONS) return null;
  const reason = ENGINE_CORRECTIONS.filter((c) => c.number > engine.corrections)
    .map((c) => `engine correction: ${c.reason}`)
    .join("; ");
  const start = (engine.demoState as { start?: string } | null)?.start;
  const result = start ? await restate(tx, new Date(start), { now, wholeHistory: true, reason }) : NOTHING_RESTATED;
  await tx.engineState.update({ where: { id: 1 }, data: { corrections: CURRENT_CORRECTIONS } });
  return result;
}

/** Equal at the column's scale: the stored side was rounded by NUMERIC(p, scale), half away from zero. */
const same = (stored: Prisma.Decimal, next: Prisma.Decimal | string | number, scale: number) =>
  new Decimal(stored.toString()).equals(new Decimal(next.toString()).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP));

/** Brings the stored compositions and chain links from `from` on in line with the recomputation. */
async function rewriteLinks(
  tx: Tx,
  from: Date,
  compositions: CompositionRow[],
  links: Prisma.ReconstitutionEventCreateManyInput[],
): Promise<number> {
  let rewritten = 0;
  const storedComps = await tx.composition.findMany({
    where: { effectiveAt: { gte: from } },
    include: { members: true },
  });
  const nextComps = new Map(compositions.map((c) => [`${c.indexId}|${c.version}`, c]));
  for (const s of storedComps) {
    const n = nextComps.get(`${s.indexId}|${s.version}`);
    const unchanged =
      n !== undefined &&
      n.effectiveAt.getTime() === s.effectiveAt.getTime() &&
      n.members.length === s.members.length &&
      n.members.every((m) =>
        s.members.some((x) => x.conditionId === m.conditionId && same(x.targetWeight, m.targetWeight, 12)),
      );
    if (unchanged) nextComps.delete(`${s.indexId}|${s.version}`);
    else {
      await tx.composition.delete({ where: { id: s.id } });
      rewritten += 1;
    }
  }
  await insertCompositions(tx, [...nextComps.values()]);
  rewritten += nextComps.size;

  const storedLinks = await tx.reconstitutionEvent.findMany({ where: { completedAt: { gte: from } } });
  const nextLinks = new Map(links.map((l) => [key(l.indexId, l.completedAt as Date), l]));
  for (const s of storedLinks) {
    const n = nextLinks.get(key(s.indexId, s.completedAt));
    if (n === undefined) {
      await tx.reconstitutionEvent.delete({ where: { id: s.id } });
      rewritten += 1;
      continue;
    }
    nextLinks.delete(key(s.indexId, s.completedAt));
    const unchanged =
      n.fromVersion === s.fromVersion &&
      n.toVersion === s.toVersion &&
      n.addedMarketCount === s.addedMarketCount &&
      n.removedMarketCount === s.removedMarketCount &&
      same(s.levelAtLink, n.levelAtLink as string, 8) &&
      same(s.oldBasketValue, n.oldBasketValue as string, 18) &&
      same(s.newBasketValue, n.newBasketValue as string, 18) &&
      same(s.linkFactor, n.linkFactor as string, 18);
    if (!unchanged) {
      await tx.reconstitutionEvent.update({
        where: { id: s.id },
        data: {
          addedMarketCount: n.addedMarketCount,
          removedMarketCount: n.removedMarketCount,
          fromVersion: n.fromVersion,
          toVersion: n.toVersion,
          levelAtLink: n.levelAtLink,
          oldBasketValue: n.oldBasketValue,
          newBasketValue: n.newBasketValue,
          linkFactor: n.linkFactor,
          detail: n.detail,
        },
      });
      rewritten += 1;
    }
  }
  if (nextLinks.size) await tx.reconstitutionEvent.createMany({ data: [...nextLinks.values()] });
  return rewritten + nextLinks.size;
}
