import "server-only";
import type { Db } from "@/lib/db";
import { floorHour, MS_PER_DAY, nextHour } from "@/lib/engine/time-format";
import type { Snapshot } from "@/lib/engine/types";
import { checkpointOf, isCheckpointHour, writeCheckpoints, type CheckpointRow } from "@/lib/ingest/checkpoints";
import { createDemoMarket, resumeDemoMarket, type DemoState } from "@/lib/ingest/demo-market";
import type { FeedMarket } from "@/lib/ingest/feed-market";
import { computeHour, loadEngine, saveStates, type CompositionRow } from "@/lib/ingest/engine-hour";
import { applyCatalogText, DEMO_CATALOG_FILE, readCatalogFile } from "@/lib/ingest/catalog-apply";
import { isStoredFeedState, loadStoredMarkets, StoredFeed, type EngineFeed } from "@/lib/ingest/stored-feed";
import type { ApplySummary } from "@/lib/catalog/apply-catalog";
import { compactLevelRows } from "@/lib/db/level-inputs";
import { saveEngineStateExact } from "@/lib/db/exact-json";
import { loadOverlay } from "@/lib/ingest/snapshot-overlay";
import { CURRENT_CORRECTIONS } from "@/lib/ingest/corrections";
import type { Prisma } from "@/lib/generated/prisma/client";

export const BACKFILL_DAYS = 120;
/** A stored feed computes at most this long past its newest snapshot (collector down: hours go stale, then stop). */
const STORED_FEED_GRACE_MS = 3 * 3_600_000;
const SNAPSHOT_KEEP_MS = 2 * MS_PER_DAY;
/** One engine writer at a time, across every instance sharing the database. */
export const ENGINE_LOCK = 7_261_121;

type Tx = Prisma.TransactionClient;

interface Pending {
  markets: Map<string, FeedMarket>;
  snapshots: Prisma.MarketSnapshotCreateManyInput[];
  levels: Prisma.IndexLevelCreateManyInput[];
  ticks: Prisma.VolatilityTickCreateManyInput[];
  reconstitutions: Prisma.ReconstitutionEventCreateManyInput[];
  compositions: CompositionRow[];
}

const emptyPending = (): Pending => ({
  markets: new Map(),
  snapshots: [],
  levels: [],
  ticks: [],
  reconstitutions: [],
  compositions: [],
});

function snapshotRow(s: Snapshot): Prisma.MarketSnapshotCreateManyInput {
  return {
    conditionId: s.conditionId,
    observedAt: s.observedAt,
    bestBid: s.bestBid.toString(),
    bestAsk: s.bestAsk.toString(),
    mid: s.mid.toString(),
    depthUsd: s.depthUsd.toFixed(2),
    resolved: s.resolved,
    outcome: s.outcome,
  };
}

export const flushTiming = { ms: 0 };

async function flush(tx: Tx, p: Pending): Promise<void> {
  const started = performance.now();
  try {
    await flushRows(tx, p);
  } finally {
    flushTiming.ms += performance.now() - started;
  }
}

async function flushRows(tx: Tx, p: Pending): Promise<void> {
  if (p.markets.size) {
    const markets = [...p.markets.values()];
    await tx.market.createMany({
      data: markets.map((m) => ({
        conditionId: m.conditionId,
        legKey: m.legKey,
        label: m.label,
        eventKey: m.eventKey,
        settlementDate: m.settlementDate,
        listedAt: m.listedAt,
        resolvedAt: m.resolvedAt,
        outcome: m.outcome,
      })),
      skipDuplicates: true,
    });
    for (const m of markets.filter((x) => x.resolvedAt)) {
      await tx.market.update({
        where: { conditionId: m.conditionId },
        data: { resolvedAt: m.resolvedAt, outcome: m.outcome },
      });
    }
  }
  for (const c of chunks(p.snapshots)) await tx.marketSnapshot.createMany({ data: c, skipDuplicates: true });
  await insertLevels(tx, p.levels);
  await insertTicks(tx, p.ticks);
  await insertCompositions(tx, p.compositions);
  if (p.reconstitutions.length) await tx.reconstitutionEvent.createMany({ data: p.reconstitutions });
  Object.assign(p, emptyPending());
}

const chunks = <T>(rows: T[], size = 2000) =>
  Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));

// Bulk rows travel as one JSON parameter each chunk: far cheaper than thousands of bound values.
export async function insertLevels(tx: Tx, levels: Prisma.IndexLevelCreateManyInput[]): Promise<void> {
  for (const c of chunks(await compactLevelRows(tx, levels), 5000)) {
    await tx.$executeRawUnsafe(
      `INSERT INTO index_levels ("indexId", t, level, revision, stale, "compositionVersion", "freshMarketsCount", "staleMarketsCount", "totalMarketsCount", "computedAt", inputs, basis)
       SELECT "indexId"::uuid, t, level, revision, stale, "compositionVersion", "freshMarketsCount", "staleMarketsCount", "totalMarketsCount", "computedAt", inputs, COALESCE(basis, 'live')
       FROM jsonb_to_recordset($1::jsonb) AS r("indexId" text, t timestamptz, level numeric, revision int, stale boolean, "compositionVersion" text,
         "freshMarketsCount" int, "staleMarketsCount" int, "totalMarketsCount" int, "computedAt" timestamptz, inputs jsonb, basis text)`,
      JSON.stringify(c),
    );
  }
}

export async function insertTicks(tx: Tx, ticks: Prisma.VolatilityTickCreateManyInput[]): Promise<void> {
  for (const c of chunks(ticks, 1000)) {
    await tx.$executeRawUnsafe(
      `INSERT INTO volatility_ticks (${TICK_COLUMNS.map((x) => `"${x[0]}"`).join(", ")})
       SELECT ${TICK_COLUMNS.map((x) => (x[0] === "seriesId" ? `"seriesId"::uuid` : x[0] === "basis" ? `COALESCE(basis, 'live')` : `"${x[0]}"`)).join(", ")}
       FROM jsonb_to_recordset($1::jsonb) AS r(${TICK_COLUMNS.map((x) => `"${x[0]}" ${x[1]}`).join(", ")})`,
      JSON.stringify(c),
    );
  }
}

export async function insertCompositions(tx: Tx, compositions: CompositionRow[]): Promise<void> {
  for (const comp of compositions) {
    await tx.composition.create({
      data: {
        indexId: comp.indexId,
        version: comp.version,
        effectiveAt: comp.effectiveAt,
        members: { create: comp.members },
      },
    });
  }
}

const TICK_COLUMNS: Array<[string, string]> = [
  ["seriesId", "text"],
  ["computedAt", "timestamptz"],
  ["headlinePts", "float8"],
  ["headlineTenorDays", "int"],
  ["tenors", "jsonb"],
  ["bandLoPts", "float8"],
  ["bandHiPts", "float8"],
  ["attrDeltaHeadlinePts", "float8"],
  ["attribution", "jsonb"],
  ["budgetW", "float8"],
  ["wTilde", "float8"],
  ["effectiveN", "float8"],
  ["sumRaw", "float8"],
  ["fbvRPts", "float8"],
  ["fbvRLabel", "text"],
  ["status", "text"],
  ["publicationState", "text"],
  ["revision", "int"],
  ["gateFlags", "jsonb"],
  ["components", "jsonb"],
  ["counterfactual", "jsonb"],
  ["labels", "jsonb"],
  ["clockVersion", "text"],
  ["devigVersion", "text"],
  ["methodologyVersion", "text"],
  ["compositionVersion", "text"],
  ["inputs", "jsonb"],
  ["basis", "text"],
];

/** The newest stored price of any market: a snapshot or a history price. */
async function newestPrice(tx: Tx): Promise<Date | null> {
  const snapshot = (await tx.marketSnapshot.aggregate({ _max: { observedAt: true } }))._max.observedAt;
  const history = (await tx.marketHistoryPrices.aggregate({ _max: { lastAt: true } }))._max.lastAt;
  return snapshot && history ? (snapshot > history ? snapshot : history) : (snapshot ?? history);
}

/** The hour the feed generates next. */
function nextHourOf(feed: EngineFeed): Date {
  const cursor = feed.cursor();
  return cursor ? nextHour(cursor) : feed.start;
}

export interface CatchUpResult {
  hours: number;
  lastTickAt: Date | null;
  skipped?: "locked";
  /** what applying the catalog changed, when one was given */
  catalog?: ApplySummary;
}

export interface CatchUpOptions {
  now?: Date;
  seed: number;
  /** the demo simulator feeds the engine (default true); otherwise stored snapshots do */
  demo?: boolean;
  /** the catalog to bring in force first (default for the demo: catalog/demo.json) */
  catalog?: { file: string; text: string } | null;
  maxHours?: number;
  backfillDays?: number;
  start?: Date;
}

/**
 * Computes every hour not yet computed, up to `now`, in one transaction under the engine lock,
 * after bringing the catalog in force. With the demo, an empty database is seeded with the demo
 * market and BACKFILL_DAYS of hourly history; without it, the engine reads the stored market
 * rows and snapshots (venue collectors and ingested files) and the stored catalog.
 */
export async function catchUp(prisma: Db, options: CatchUpOptions): Promise<CatchUpResult> {
  let until = floorHour(options.now ?? new Date());
  const demo = options.demo ?? true;
  const catalogFile =
    options.catalog !== undefined ? options.catalog : demo ? readCatalogFile(DEMO_CATALOG_FILE) : null;
  const result = await prisma.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<Array<{ ok: boolean }>>`SELECT pg_try_advisory_xact_lock(${ENGINE_LOCK}) AS ok`;
      if (!lock?.ok) return { hours: 0, lastTickAt: null, skipped: "locked" as const };
      const engine = await tx.engineState.findUnique({ where: { id: 1 } });
      let feed: EngineFeed;
      let applied: ApplySummary | undefined;
      if (demo) {
        if (engine && isStoredFeedState(engine.demoState))
          throw new Error("this database was computed without the demo market; start with DEMO_MARKET=0");
        const market = engine
          ? resumeDemoMarket(engine.demoState as unknown as DemoState)
          : createDemoMarket({
              seed: options.seed,
              start: options.start ?? new Date(until.getTime() - (options.backfillDays ?? BACKFILL_DAYS) * MS_PER_DAY),
            });
        if (catalogFile)
          applied = await applyCatalogText(tx, catalogFile.file, catalogFile.text, {
            demo,
            seed: options.seed,
            now: until,
            demoStart: market.start,
          });
        feed = market;
      } else {
        if (engine?.demoState && !isStoredFeedState(engine.demoState))
          throw new Error(
            "this database was computed by the demo market; start with DEMO_MARKET=1 or use a new database",
          );
        if (catalogFile)
          applied = await applyCatalogText(tx, catalogFile.file, catalogFile.text, {
            demo,
            seed: options.seed,
            now: until,
          });
        const stored = engine && isStoredFeedState(engine.demoState) ? engine.demoState : null;
        let start = stored ? new Date(stored.start) : null;
        if (!start) {
          const first = await tx.index.aggregate({ _min: { inceptionAt: true } });
          const firstSeries = await tx.volatilitySeries.aggregate({ _min: { inceptionAt: true } });
          const earliest = [first._min.inceptionAt, firstSeries._min.inceptionAt]
            .filter((d): d is Date => d !== null)
            .map((d) => d.getTime());
          if (earliest.length === 0) return { hours: 0, lastTickAt: null, catalog: applied };
          start = floorHour(new Date(Math.min(...earliest) + 3_599_999));
        }
        // An hour is computed once something of it was read (or is stale beyond the grace period).
        const newest = await newestPrice(tx);
        if (!newest) return { hours: 0, lastTickAt: engine?.lastTickAt ?? null, catalog: applied };
        until = new Date(Math.min(until.getTime(), floorHour(newest).getTime() + STORED_FEED_GRACE_MS));
        feed = new StoredFeed(start, engine?.lastTickAt ?? null, await loadStoredMarkets(tx));
      }
      const { catalog, states } = await loadEngine(tx, { deferEmptyInception: !demo });
      const overlay = await loadOverlay(tx, nextHourOf(feed), until);

      const pending = emptyPending();
      const checkpoints: CheckpointRow[] = [];
      const known = new Set<string>();
      let hours = 0;
      let last: Date | null = engine?.lastTickAt ?? null;
      for (;;) {
        if (nextHourOf(feed) > until || (options.maxHours !== undefined && hours >= options.maxHours)) break;
        const hour = feed.advance();
        if (demo) {
          for (const m of hour.universe) {
            if (known.has(m.conditionId)) continue;
            known.add(m.conditionId);
            pending.markets.set(m.conditionId, m);
          }
          for (const m of hour.resolvedNow) pending.markets.set(m.conditionId, m);
        }
        // The demo feed is regenerated from its seed, so only its recent snapshots are kept (for
        // audits of the current levels); ingested files and venue reads keep every snapshot.
        if (until.getTime() - hour.t.getTime() <= SNAPSHOT_KEEP_MS)
          for (const s of hour.observed) pending.snapshots.push(snapshotRow(s));
        const out = computeHour(
          catalog,
          states,
          hour.t,
          overlay.apply(hour.t, hour.latest, hour.universe),
          hour.universe,
        );
        pending.levels.push(...out.levels);
        pending.ticks.push(...out.ticks);
        pending.compositions.push(...out.compositions);
        pending.reconstitutions.push(...out.reconstitutions);
        if (isCheckpointHour(hour.t, until)) checkpoints.push(checkpointOf(hour.t, feed.state(), states));
        hours += 1;
        last = hour.t;
        if (pending.snapshots.length > 20_000) await flush(tx, pending);
      }
      await flush(tx, pending);
      if (hours === 0) return { hours, lastTickAt: last, catalog: applied };
      await writeCheckpoints(tx, checkpoints, last!);
      await saveStates(tx, catalog, states);
      // the demo's state written losslessly (its doubles continue the same path in the next chunk);
      // a database computed from scratch reflects every engine correction
      await saveEngineStateExact(tx, {
        lastTickAt: last!,
        demoState: feed.state(),
        create: { demoSeed: demo ? options.seed : null, corrections: CURRENT_CORRECTIONS },
      });
      return { hours, lastTickAt: last, catalog: applied };
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
  return result;
}
