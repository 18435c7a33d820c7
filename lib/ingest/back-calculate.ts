import "server-only";
import { setImmediate } from "node:timers/promises";
import type { Db } from "@/lib/db";
import { universeSchema } from "@/lib/catalog/schema";
import { universeSelectors } from "@/lib/catalog/compile";
import { floorHour, MS_PER_DAY, MS_PER_HOUR, nextHour } from "@/lib/engine/time-format";
import type { Prisma } from "@/lib/generated/prisma/client";
import { checkpointOf, isCheckpointHour, writeCheckpoints, type CheckpointRow } from "@/lib/ingest/checkpoints";
import {
  computeHour,
  loadEngine,
  saveStates,
  type CompositionRow,
  type EngineCatalog,
  type EngineStates,
} from "@/lib/ingest/engine-hour";
import { updateRowsExact } from "@/lib/db/exact-json";
import { ENGINE_LOCK, insertCompositions, insertLevels, insertTicks } from "@/lib/ingest/engine-runner";
import { levelIsMaterial, restate, tickIsMaterial, type StoredTick } from "@/lib/ingest/restate";
import { firstLegsOf, storeFirstLegs } from "@/lib/ingest/series-legs";
import { loadOverlay, type SnapshotOverlay } from "@/lib/ingest/snapshot-overlay";
import { storeHistoryPrices } from "@/lib/ingest/history-store";
import { HeldHistory } from "@/lib/ingest/history-held";
import { recordRunsDrift } from "@/lib/incidents/drift";
import { loadStoredMarkets, StoredFeed } from "@/lib/ingest/stored-feed";
import type { Venues } from "@/lib/venues/connect";
import {
  readHistory,
  RESOLVED_FIDELITY_MINUTES,
  type HistoryMarket,
  type HistoryPoint,
} from "@/lib/venues/price-history";
import type { VenueConnector, VenueEventLegs, VenueMarket, VenueName } from "@/lib/venues/types";

type Tx = Prisma.TransactionClient;
/** A venue's client for this job and its connector over it. */
type VenueClient = ReturnType<Venues["connect"]>;

/** The most memory the history held for the computation may take (90 days of 2,000 markets take about 52 MiB). */
const HELD_HISTORY_MAX_BYTES = 256 * 2 ** 20;
/** Hours replayed per pass: bounds the snapshots held in memory at once. */
const CHUNK_HOURS = 24;
/** Markets whose history is read and stored together: at most 200, fewer for a long span (memory holds one batch's prices). */
const HISTORY_BATCH = 200;
/** Hourly prices one batch may hold (markets x hours): 90 days of history read 80 markets at a time. */
const HISTORY_BATCH_POINTS = 200_000;
/** Markets per batch for `hours` of history: a multiple of Polymarket's 20 tokens a request, 20 to HISTORY_BATCH. */
export const historyBatchSize = (hours: number) =>
  Math.max(20, Math.min(HISTORY_BATCH, Math.floor(HISTORY_BATCH_POINTS / Math.max(1, hours) / 20) * 20));

export interface BackCalcEntry {
  ticker: string;
  kind: "index" | "volatility";
  venue: VenueName;
  /** the base date (inceptionAt) and the launch */
  base: Date;
  launch: Date;
  /** index universes' selectors; for a series, its event */
  selectors: string[];
  event: string | null;
}

export interface BackCalcResult {
  tickers: string[];
  markets: number;
  /** history prices stored (hours x markets): added, and replaced where the venue corrected its history */
  prices: number;
  /** stored history prices the venue has since changed (a corrected history): replaced, their hours recomputed */
  corrected: number;
  /** the first hour whose stored price was replaced */
  firstCorrected: Date | null;
  /** the earliest launch of the entries back-calculated: the hours from it on are live (or filled from the history when missed) */
  firstLaunch: Date | null;
  /** markets whose first price is before their stored listing, listed earlier */
  listedEarlier: number;
  /** resolutions dated from the history (before the launch) */
  resolutions: number;
  hours: number;
  values: number;
  restated: number;
  requests: number;
  problems: string[];
  /**
   * entries a failed read held back (their venue down, timing out, answering 5xx), with the reason:
   * not computed and not marked back-calculated; the next run (or start) tries them again
   */
  waiting: Array<{ ticker: string; reason: string }>;
  /** where the time went (ms): reading the venues, storing their prices, reading them back for the engine, computing, writing the values */
  timing: { read: number; store: number; load: number; compute: number; write: number };
}

/** Adds the time `work` takes to `timing[phase]`. */
async function timed<T>(
  timing: BackCalcResult["timing"],
  phase: keyof BackCalcResult["timing"],
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timing[phase] += performance.now() - started;
  }
}

/** The entries of the applied catalog with a base date before their launch (all, or the named ones). */
export async function backCalcEntries(prisma: Db | Tx, tickers?: readonly string[]): Promise<BackCalcEntry[]> {
  const where = tickers ? { ticker: { in: [...tickers] } } : {};
  const out: BackCalcEntry[] = [];
  for (const r of await prisma.index.findMany({
    where: { ...where, removedAt: null },
    select: { ticker: true, inceptionAt: true, launchAt: true, universe: true },
  })) {
    const u = universeSchema.safeParse(r.universe);
    if (!u.success || u.data.venue === "demo" || !r.launchAt || r.launchAt <= r.inceptionAt) continue;
    out.push({
      ticker: r.ticker,
      kind: "index",
      venue: u.data.venue,
      base: r.inceptionAt,
      launch: r.launchAt,
      selectors: universeSelectors(u.data),
      event: null,
    });
  }
  for (const r of await prisma.volatilitySeries.findMany({
    where: { ...where, ceasedAt: null },
    select: { ticker: true, inceptionAt: true, launchAt: true, venue: true, event: true },
  })) {
    if ((r.venue !== "polymarket" && r.venue !== "kalshi") || !r.launchAt || r.launchAt <= r.inceptionAt) continue;
    out.push({
      ticker: r.ticker,
      kind: "volatility",
      venue: r.venue,
      base: r.inceptionAt,
      launch: r.launchAt,
      selectors: [],
      event: r.event,
    });
  }
  return out;
}

/** Entries whose back-calculation has not run yet (new entries with a base date). */
export async function pendingBackCalcTickers(prisma: Db): Promise<string[]> {
  const rows = [
    ...(await prisma.index.findMany({
      where: { backCalculatedAt: null, removedAt: null, launchAt: { not: null } },
      select: { ticker: true, inceptionAt: true, launchAt: true },
    })),
    ...(await prisma.volatilitySeries.findMany({
      where: { backCalculatedAt: null, ceasedAt: null, launchAt: { not: null } },
      select: { ticker: true, inceptionAt: true, launchAt: true },
    })),
  ];
  return rows.filter((r) => r.launchAt! > r.inceptionAt).map((r) => r.ticker);
}

interface Wanted {
  market: VenueMarket | null;
  conditionId: string;
  venue: VenueName;
  venueRef: string;
  series: string | null;
  selectors: string[];
  legKey: string | null;
}

const seriesOf = (selectors: readonly string[]) =>
  selectors.find((s) => s.startsWith("kalshi:series:"))?.slice("kalshi:series:".length) ?? null;

/** The markets the entries need, and what their reads could not tell (a venue whose market lists failed). */
interface WantedMarkets {
  wanted: Map<string, Wanted>;
  /** a series' event legs, by the series' ticker */
  events: Map<string, VenueEventLegs>;
  /** venues whose discovery, closed-market or event reads failed, with the first failure: their entries' markets are not all known */
  unlisted: Map<VenueName, string>;
}

/** Adds a market to `wanted`, merged with what is already there of it. */
function addWanted(wanted: Map<string, Wanted>, w: Wanted): void {
  const prior = wanted.get(w.conditionId);
  wanted.set(
    w.conditionId,
    prior
      ? {
          ...prior,
          market: prior.market ?? w.market,
          selectors: [...new Set([...prior.selectors, ...w.selectors])],
          series: prior.series ?? w.series,
        }
      : w,
  );
}

const venueWanted = (m: VenueMarket, extra: string[] = []): Wanted => ({
  market: m,
  conditionId: m.conditionId,
  venue: m.venue,
  venueRef: m.venueRef,
  series: seriesOf(m.selectors),
  selectors: [...m.selectors, ...extra],
  legKey: m.legKey,
});

/** The markets an entry needs: what the venue lists now, and what the service already holds of its universe. */
async function wantedMarkets(
  prisma: Db,
  entries: readonly BackCalcEntry[],
  clients: ReadonlyMap<VenueName, VenueClient>,
  problems: string[],
): Promise<WantedMarkets> {
  const out: WantedMarkets = { wanted: new Map(), events: new Map(), unlisted: new Map() };
  const legs = await legsOf(prisma, entries);
  for (const venue of ["polymarket", "kalshi"] as const) {
    const mine = entries.filter((e) => e.venue === venue);
    if (mine.length === 0) continue;
    const client = clients.get(venue)!;
    const failedBefore = client.http.failed;
    const problemsBefore = problems.length;
    const selectors = [...new Set(mine.flatMap((e) => e.selectors))];
    if (selectors.length) await listedMarkets(client.connector, mine, selectors, out.wanted, problems);
    await eventLegs(client.connector, mine, out, problems);
    // a failed read left the venue's lists incomplete: its entries wait (see waitingEntries)
    if (client.http.failed > failedBefore)
      out.unlisted.set(venue, problems.slice(problemsBefore).join("; ") || "a venue read failed");
    // Held markets of these universes the venue no longer lists (closed since) are priced from their history too.
    const held = await prisma.market.findMany({
      where: {
        venue,
        OR: [
          { selectors: { hasSome: selectors.length ? selectors : ["-"] } },
          { conditionId: { in: mine.flatMap((e) => legs.get(e.ticker) ?? []) } },
        ],
      },
      select: { conditionId: true, venueRef: true, selectors: true, legKey: true },
    });
    for (const h of held)
      if (h.venueRef)
        addWanted(out.wanted, {
          market: null,
          conditionId: h.conditionId,
          venue,
          venueRef: h.venueRef,
          series: seriesOf(h.selectors),
          selectors: h.selectors,
          legKey: h.legKey,
        });
  }
  return out;
}

/** What the venue lists of the selectors' universes: open now, and closed since the earliest base date. */
async function listedMarkets(
  connector: VenueConnector,
  mine: readonly BackCalcEntry[],
  selectors: readonly string[],
  wanted: Map<string, Wanted>,
  problems: string[],
): Promise<void> {
  const found = await connector.discover(selectors);
  problems.push(...found.problems);
  found.markets.forEach((m) => addWanted(wanted, venueWanted(m)));
  // Markets that opened and closed between the base date and now, which the venue no longer
  // lists as open: without them the history would hold only the survivors.
  const since = new Date(Math.min(...mine.map((e) => e.base.getTime())));
  const closed = await connector.closedSince(selectors, since);
  problems.push(...closed.problems);
  closed.markets.forEach((m) => addWanted(wanted, venueWanted(m)));
}

/** The legs of each series' event, as the venue lists them now. */
async function eventLegs(
  connector: VenueConnector,
  mine: readonly BackCalcEntry[],
  out: WantedMarkets,
  problems: string[],
): Promise<void> {
  for (const e of mine.filter((x) => x.event)) {
    try {
      const legs = await connector.event(e.event!);
      if (legs) {
        legs.legs.forEach((m) => addWanted(out.wanted, venueWanted(m, [`${e.venue}:series-event:${e.event}`])));
        out.events.set(e.ticker, legs);
      } else problems.push(`${e.ticker}: event ${e.event} not found`);
    } catch (error) {
      problems.push(`${e.ticker}: ${(error as Error).message}`);
    }
  }
}

/** The legs the service holds of each volatility series, by ticker. */
async function legsOf(prisma: Db, entries: readonly BackCalcEntry[]): Promise<Map<string, string[]>> {
  const tickers = entries.filter((e) => e.kind === "volatility").map((e) => e.ticker);
  if (tickers.length === 0) return new Map();
  const rows = await prisma.volatilitySeries.findMany({
    where: { ticker: { in: tickers } },
    select: { ticker: true, legConditionIds: true },
  });
  return new Map(rows.map((r) => [r.ticker, r.legConditionIds]));
}

/** Whether an entry needs a market: the same venue, and the market is in its universe or its event's legs. */
function needs(e: BackCalcEntry, w: Wanted, legs: ReadonlyMap<string, string[]>): boolean {
  if (e.venue !== w.venue) return false;
  if (e.kind === "index") return w.selectors.some((s) => e.selectors.includes(s));
  return (
    w.selectors.includes(`${e.venue}:series-event:${e.event}`) || (legs.get(e.ticker) ?? []).includes(w.conditionId)
  );
}

/**
 * The entries that must wait for a later run, with the reason: a read they needed failed (their
 * venue's market lists, or the history of a market they hold), so what was read is not all of
 * their history. A market that failed and that no entry can be shown to hold holds back every
 * entry of its venue. An answer with no points is history too (the market has none): it holds
 * nothing back.
 */
async function waitingEntries(
  prisma: Db,
  entries: readonly BackCalcEntry[],
  found: WantedMarkets,
  failed: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const waiting = new Map<string, string>();
  for (const e of entries) {
    const unlisted = found.unlisted.get(e.venue);
    if (unlisted) waiting.set(e.ticker, `${e.venue}'s market lists could not be read (${unlisted})`);
  }
  if (failed.size === 0) return waiting;
  const legs = await legsOf(prisma, entries);
  for (const [id, problem] of failed) {
    const w = found.wanted.get(id)!;
    const holders = entries.filter((e) => needs(e, w, legs));
    for (const e of holders.length ? holders : entries.filter((x) => x.venue === w.venue))
      if (!waiting.has(e.ticker)) waiting.set(e.ticker, `the history of ${id} could not be read (${problem})`);
  }
  return waiting;
}

/** The hours the history is read over: from the earliest base date to the hour before the latest launch. */
interface HistorySpan {
  base: Date;
  lastHistoryHour: Date;
}

/**
 * The history held in memory for the computation, over the whole days before the launch's (a gap
 * fill may write the launch day's later hours meanwhile: those are read back), unless that would
 * take more than HELD_HISTORY_MAX_BYTES: then the computation reads it back.
 */
function heldHistoryFor(markets: number, span: HistorySpan): HeldHistory | undefined {
  const { base, lastHistoryHour } = span;
  const firstDay = Math.floor(base.getTime() / MS_PER_DAY) * MS_PER_DAY;
  const lastHeldDay =
    Math.floor(lastHistoryHour.getTime() / MS_PER_DAY) * MS_PER_DAY -
    (lastHistoryHour.getTime() % MS_PER_DAY === 23 * MS_PER_HOUR ? 0 : MS_PER_DAY);
  const heldBytes = markets * ((lastHeldDay - firstDay) / MS_PER_HOUR + 24) * HeldHistory.BYTES_PER_MARKET_HOUR;
  return lastHeldDay >= firstDay && heldBytes <= HELD_HISTORY_MAX_BYTES
    ? new HeldHistory(base, new Date(lastHeldDay))
    : undefined;
}

/**
 * Reads every wanted market's history and stores it, a batch of markets at a time; the next batch
 * is read while one is stored, so memory holds two batches' prices at most. Returns the markets
 * whose history could not be read, with the reason, and the history held for the computation.
 */
async function readAndStoreHistory(
  prisma: Db,
  venues: Venues,
  clients: ReadonlyMap<VenueName, VenueClient>,
  wanted: Map<string, Wanted>,
  span: HistorySpan,
  result: BackCalcResult,
  log: (line: string) => void,
): Promise<{ failed: Map<string, string>; held: HeldHistory | undefined }> {
  // a Kalshi market settled before the historical cutoff is read from the historical tier; a resolved Polymarket one from its 12-hour points
  const list: HistoryMarket[] = [...wanted.values()].map((w) => ({
    venue: w.venue,
    conditionId: w.conditionId,
    venueRef: w.venueRef,
    series: w.series,
    historical: w.market?.historical,
    resolved: w.venue === "polymarket" && w.market?.resolved === true,
  }));
  log(`${list.length} market(s) to price from ${span.base.toISOString()}`);
  const batchSize = historyBatchSize((span.lastHistoryHour.getTime() - span.base.getTime()) / MS_PER_HOUR + 1);
  const held = heldHistoryFor(list.length, span);
  const failed = new Map<string, string>();
  const readBatch = (i: number) => {
    const batch = list.slice(i, i + batchSize);
    return settled(
      Promise.all(
        (["polymarket", "kalshi"] as const).map((venue) =>
          readHistory(
            clients.get(venue)!.http,
            venues.endpoints,
            batch.filter((m) => m.venue === venue),
            floorHour(span.base),
            span.lastHistoryHour,
          ),
        ),
      ),
    );
  };
  let reading = list.length ? readBatch(0) : null;
  for (let i = 0; i < list.length; i += batchSize) {
    const reads = await timed(result.timing, "read", () => reading!);
    reading = i + batchSize < list.length ? readBatch(i + batchSize) : null;
    const history = new Map<string, HistoryPoint[]>();
    for (const r of reads.flat()) {
      if (r.outcome === "failed") {
        failed.set(r.conditionId, r.problem);
        result.problems.push(`${r.conditionId}: ${r.problem}`);
      } else if (r.points.length) history.set(r.conditionId, r.points);
    }
    result.markets += history.size;
    log(`history of ${Math.min(i + batchSize, list.length)}/${list.length} market(s) read`);
    await timed(result.timing, "store", () =>
      prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
          await storeHistory(tx, wanted, history, span.lastHistoryHour, result, held);
        },
        { timeout: 600_000, maxWait: 60_000 },
      ),
    );
  }
  return { failed, held };
}

/**
 * Computes the entries whose history was read whole and marks them back-calculated: on a running
 * service from their base date through the engine's newest hour; on a new one, the engine's first
 * run, from the base date through the hour before the launch.
 */
async function computeBackCalculated(
  prisma: Db,
  entries: readonly BackCalcEntry[],
  events: ReadonlyMap<string, VenueEventLegs>,
  span: HistorySpan,
  now: Date,
  result: BackCalcResult,
  log: (line: string) => void,
  held: HeldHistory | undefined,
): Promise<void> {
  await prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
      const ready = await readyEntries(tx, entries, events, result);
      const engine = await tx.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } });
      if (ready.length && engine && engine.lastTickAt >= span.base)
        await recomputeEntries(tx, ready, engine.lastTickAt, now, result, false, log, held);
      else if (ready.length && !engine && result.markets > 0)
        await recomputeEntries(tx, ready, span.lastHistoryHour, now, result, true, log, held);
      if (engine) await restateOthers(tx, ready, engine.lastTickAt, now, result);
      // done: the entries computed here (or, on a new service, by the engine's first run from their base date)
      const done = ready.map((e) => e.ticker);
      await tx.index.updateMany({ where: { ticker: { in: done } }, data: { backCalculatedAt: now } });
      await tx.volatilitySeries.updateMany({ where: { ticker: { in: done } }, data: { backCalculatedAt: now } });
    },
    { timeout: 1_800_000, maxWait: 60_000 },
  );
}

const emptyResult = (entries: readonly BackCalcEntry[]): BackCalcResult => ({
  tickers: entries.map((e) => e.ticker),
  markets: 0,
  prices: 0,
  corrected: 0,
  firstCorrected: null,
  firstLaunch: entries.length ? new Date(Math.min(...entries.map((e) => e.launch.getTime()))) : null,
  listedEarlier: 0,
  resolutions: 0,
  hours: 0,
  values: 0,
  restated: 0,
  requests: 0,
  problems: [],
  waiting: [],
  timing: { read: 0, store: 0, load: 0, compute: 0, write: 0 },
});

/**
 * Back-calculates entries from their base date to their launch: reads every market's hourly price
 * history from the venues, stores it as snapshots marked `history` (no depth; a market is listed
 * from its first price, a resolution before the launch is dated at the hour after its last price),
 * then computes the entries alone from the base date through the newest computed hour. Values
 * before the launch are marked back-calculated; values after it are recomputed on the new history
 * and a published value that moves beyond the materiality threshold is restated (revision + 1).
 * An entry a failed read held back (its venue down, timing out, answering 5xx) is neither computed
 * nor marked done: it is listed in `waiting` with the reason, and the next run tries it again (one
 * already back-calculated keeps its values). Requests go through `venues`, within each venue's
 * budget shared with the process's other jobs.
 */
export async function backCalculate(
  prisma: Db,
  tickers: readonly string[] | null,
  venues: Venues,
  options: { now?: Date; log?: (line: string) => void } = {},
): Promise<BackCalcResult> {
  const log = options.log ?? (() => {});
  // A new service computes its first hours here: every entry with a base date takes part.
  const started = (await prisma.engineState.count()) > 0;
  const entries = await backCalcEntries(prisma, started ? (tickers ?? undefined) : undefined);
  const result = emptyResult(entries);
  if (entries.length === 0) return result;
  const clients = new Map<VenueName, VenueClient>(
    (["polymarket", "kalshi"] as const).map((venue) => [venue, venues.connect(venue, { keepRaw: false })]),
  );
  const found = await wantedMarkets(prisma, entries, clients, result.problems);
  const span: HistorySpan = {
    base: new Date(Math.min(...entries.map((e) => e.base.getTime()))),
    lastHistoryHour: new Date(Math.max(...entries.map((e) => e.launch.getTime())) - MS_PER_HOUR),
  };
  const { failed, held } = await readAndStoreHistory(prisma, venues, clients, found.wanted, span, result, log);
  result.requests = [...clients.values()].reduce((n, c) => n + c.http.requests, 0);
  // what the venues changed that the history reads rely on: drift, an incident each (lib/incidents/drift.ts)
  await prisma.$transaction((tx) =>
    recordRunsDrift(
      tx,
      [...clients].map(([venue, c]) => ({ venue, drift: c.http.drift, healthy: c.http.healthy })),
      new Date(),
    ),
  );
  const waiting = await waitingEntries(prisma, entries, found, failed);
  for (const [ticker, reason] of waiting) {
    result.waiting.push({ ticker, reason });
    log(`${ticker} waits for a later run: ${reason}`);
  }
  log(`history stored (${result.prices} prices); computing`);
  const now = options.now ?? new Date();
  const whole = entries.filter((e) => !waiting.has(e.ticker));
  await computeBackCalculated(prisma, whole, found.events, span, now, result, log, held);
  return result;
}

/**
 * The entries a computation can back-calculate: every index, and every series with legs. A series
 * the collector has not read yet takes its legs from the event read here (as the collector's first
 * read would); one whose event lists no legs is left pending (not marked done, tried again on the
 * next run) instead of being marked back-calculated with no values.
 */
async function readyEntries(
  tx: Tx,
  entries: readonly BackCalcEntry[],
  events: ReadonlyMap<string, VenueEventLegs>,
  result: BackCalcResult,
): Promise<BackCalcEntry[]> {
  const series = entries.filter((e) => e.kind === "volatility");
  if (series.length === 0) return [...entries];
  const rows = await tx.volatilitySeries.findMany({
    where: { ticker: { in: series.map((e) => e.ticker) } },
    select: {
      ticker: true,
      name: true,
      headlineTenorDays: true,
      settlementDate: true,
      legConditionIds: true,
      legWindows: true,
    },
  });
  const withLegs = new Set<string>();
  for (const r of rows) {
    if (r.legConditionIds.length > 0 || ((r.legWindows as unknown[] | null) ?? []).length > 0) {
      withLegs.add(r.ticker);
      continue;
    }
    const event = events.get(r.ticker);
    const first = event ? firstLegsOf(r, event) : null;
    if (first) {
      await storeFirstLegs(tx, r.ticker, first);
      withLegs.add(r.ticker);
    } else
      result.problems.push(`${r.ticker}: no legs known yet (its event was not read): back-calculated on a later run`);
  }
  return entries.filter((e) => e.kind === "index" || withLegs.has(e.ticker));
}

/**
 * A corrected history price also moves the entries not recomputed here that hold the market: the
 * hours from the first corrected one are restated for them as any corrected snapshot is
 * (lib/ingest/restate.ts; the recomputed entries' values already stand, so they are unchanged).
 */
async function restateOthers(
  tx: Tx,
  recomputed: readonly BackCalcEntry[],
  lastTickAt: Date,
  now: Date,
  result: BackCalcResult,
): Promise<void> {
  const from = result.firstCorrected;
  if (!from || from > lastTickAt) return;
  const names = recomputed.map((e) => e.ticker);
  const others =
    (await tx.index.count({ where: { removedAt: null, ticker: { notIn: names } } })) +
    (await tx.volatilitySeries.count({ where: { ceasedAt: null, ticker: { notIn: names } } }));
  if (others === 0) return;
  const r = await restate(tx, from, { now, reason: CORRECTED_HISTORY });
  result.restated += r.levelsRestated + r.ticksRestated;
}

/** The reason a restatement record gives when the venue corrected its price history. */
const CORRECTED_HISTORY = "back-calculation: the venue corrected its price history";

/** Stores the history as market rows and hourly history prices (a resolution as a `history` snapshot); a book read already stored for an hour is kept. */
async function storeHistory(
  tx: Tx,
  wanted: Map<string, Wanted>,
  history: Map<string, HistoryPoint[]>,
  lastHour: Date,
  result: BackCalcResult,
  held?: HeldHistory,
): Promise<void> {
  const ids = [...history.keys()];
  const stored = new Map(
    (
      await tx.market.findMany({
        where: { conditionId: { in: ids } },
        select: { conditionId: true, listedAt: true, resolvedAt: true, selectors: true },
      })
    ).map((m) => [m.conditionId, m]),
  );
  const fresh: Prisma.MarketCreateManyInput[] = [];
  const snapshots: Prisma.MarketSnapshotCreateManyInput[] = [];
  const prices = new Map<string, readonly HistoryPoint[]>();
  const coarse: string[] = [];
  for (const [id, points] of history) {
    const w = wanted.get(id)!;
    const first = points[0]!.t;
    const last = points.at(-1)!.t;
    const m = w.market;
    // Resolved before the launch: at its settlement the hour after its last price.
    const resolvedAt = m?.resolved && last.getTime() < lastHour.getTime() ? nextHour(last) : null;
    const row = stored.get(id);
    if (!row) {
      if (!m) continue;
      fresh.push({
        conditionId: id,
        venue: m.venue,
        venueRef: m.venueRef,
        label: m.label,
        legKey: m.legKey,
        eventKey: m.eventKey,
        selectors: w.selectors,
        settlementDate: m.settlementDate,
        listedAt: first,
        resolvedAt: m.resolved ? (resolvedAt ?? nextHour(lastHour)) : null,
        outcome: m.outcome,
      });
    } else {
      const earlier = first < row.listedAt;
      const resolvesEarlier = resolvedAt !== null && (row.resolvedAt === null || resolvedAt < row.resolvedAt);
      if (earlier) result.listedEarlier += 1;
      if (earlier || resolvesEarlier)
        await tx.market.update({
          where: { conditionId: id },
          data: {
            ...(earlier ? { listedAt: first } : {}),
            ...(resolvesEarlier ? { resolvedAt, outcome: m!.outcome } : {}),
          },
        });
    }
    if (resolvedAt) result.resolutions += 1;
    if (points[0]!.coarse) coarse.push(id);
    prices.set(id, resolvedAt ? points.filter((p) => p.t < resolvedAt) : points);
    if (resolvedAt && m?.outcome !== null && m?.outcome !== undefined) {
      const o = String(m.outcome);
      snapshots.push({
        conditionId: id,
        observedAt: resolvedAt,
        bestBid: o,
        bestAsk: o,
        mid: o,
        depthUsd: "0.00",
        resolved: true,
        outcome: m.outcome,
        ingested: true,
        source: "history",
      });
    }
  }
  if (fresh.length) await tx.market.createMany({ data: fresh, skipDuplicates: true });
  // markets priced from 12-hour points: the bundles mark the hours they are in (lib/snapshots/build-bundles.ts)
  if (coarse.length)
    await tx.market.updateMany({
      where: { conditionId: { in: coarse } },
      data: { historyFidelityMinutes: RESOLVED_FIDELITY_MINUTES },
    });
  // the hourly prices as one row per market per day; a resolution stays a snapshot
  const written = await storeHistoryPrices(tx, prices, held);
  result.prices += written.added + written.replaced + (await insertHistorySnapshots(tx, snapshots));
  result.corrected += written.replaced;
  if (written.firstReplaced && (result.firstCorrected === null || written.firstReplaced < result.firstCorrected))
    result.firstCorrected = written.firstReplaced;
}

const SNAPSHOT_CHUNK = 20_000;

/**
 * Stores `history` snapshots, a stored read of the same market and hour kept (ON CONFLICT DO
 * NOTHING): one INSERT of column arrays per chunk, far cheaper than bound values row by row.
 */
export async function insertHistorySnapshots(
  tx: Tx,
  rows: readonly Prisma.MarketSnapshotCreateManyInput[],
): Promise<number> {
  let stored = 0;
  for (let i = 0; i < rows.length; i += SNAPSHOT_CHUNK) {
    const c = rows.slice(i, i + SNAPSHOT_CHUNK);
    stored += await tx.$executeRawUnsafe(
      `INSERT INTO market_snapshots ("conditionId", "observedAt", "bestBid", "bestAsk", mid, "depthUsd", resolved, outcome, ingested, source)
       SELECT c, t, b, a, m, 0, r, o, true, 'history'
       FROM unnest($1::text[], $2::timestamptz[], $3::numeric[], $4::numeric[], $5::numeric[], $6::boolean[], $7::int[]) AS u(c, t, b, a, m, r, o)
       ON CONFLICT DO NOTHING`,
      c.map((r) => r.conditionId),
      c.map((r) => (r.observedAt as Date).toISOString()),
      c.map((r) => String(r.bestBid)),
      c.map((r) => String(r.bestAsk)),
      c.map((r) => String(r.mid)),
      c.map((r) => r.resolved ?? false),
      c.map((r) => r.outcome ?? null),
    );
  }
  return stored;
}

const key = (id: string, t: Date) => `${id}|${t.toISOString()}`;

/** The engine's catalog of the entries alone, and their ids. */
async function entriesCatalog(tx: Tx, entries: readonly BackCalcEntry[]) {
  const { catalog: full } = await loadEngine(tx, { deferEmptyInception: true });
  const names = new Set(entries.map((e) => e.ticker));
  const catalog: EngineCatalog = {
    ...full,
    indices: full.indices.filter((d) => names.has(d.ticker)),
    series: full.series.filter((d) => names.has(d.ticker)),
    pending: new Set(),
  };
  const indexIds = catalog.indices.map((d) => catalog.indexIds.get(d.ticker)!);
  const seriesIds = catalog.series.map((d) => catalog.seriesIds.get(d.ticker)!);
  const tickerOf = new Map([...catalog.indexIds, ...catalog.seriesIds].map(([ticker, id]) => [id, ticker]));
  return { catalog, indexIds, seriesIds, tickerOf };
}

/** The values of one chunk of hours. */
interface ChunkValues {
  levels: Prisma.IndexLevelCreateManyInput[];
  ticks: Prisma.VolatilityTickCreateManyInput[];
  compositions: CompositionRow[];
  links: Prisma.ReconstitutionEventCreateManyInput[];
}

/** Computes a chunk's hours from the stored feed and the overlay, keeping a checkpoint's states where one falls. */
async function computeChunk(
  chunk: Chunk,
  overlay: SnapshotOverlay,
  engine: { catalog: EngineCatalog; states: EngineStates; feed: StoredFeed; last: Date },
  checkpoints: CheckpointRow[],
  result: BackCalcResult,
): Promise<ChunkValues> {
  const { catalog, states, feed, last } = engine;
  const out: ChunkValues = { levels: [], ticks: [], compositions: [], links: [] };
  const computing = performance.now();
  for (let t = chunk.from, n = 1; t <= chunk.until; t = nextHour(t), n++) {
    const hour = feed.advance();
    const values = computeHour(
      catalog,
      states,
      hour.t,
      overlay.apply(hour.t, hour.latest, hour.universe),
      hour.universe,
    );
    out.levels.push(...values.levels);
    out.ticks.push(...values.ticks);
    out.compositions.push(...values.compositions);
    out.links.push(...values.reconstitutions);
    result.hours += 1;
    if (isCheckpointHour(hour.t, last)) checkpoints.push(checkpointOf(hour.t, feed.state(), states));
    if (n % YIELD_HOURS === 0) await setImmediate();
  }
  result.timing.compute += performance.now() - computing;
  return out;
}

/** Replaces the entries' rows of a chunk's hours with the recomputed values and their restatement records. */
async function writeChunk(
  tx: Tx,
  ids: { indexIds: string[]; seriesIds: string[] },
  range: { gte: Date; lte: Date },
  values: ChunkValues,
  records: Prisma.RestatementCreateManyInput[],
): Promise<void> {
  await tx.indexLevel.deleteMany({ where: { indexId: { in: ids.indexIds }, t: range } });
  await tx.volatilityTick.deleteMany({ where: { seriesId: { in: ids.seriesIds }, computedAt: range } });
  await insertLevels(tx, values.levels);
  await insertTicks(tx, values.ticks);
  await insertCompositions(tx, values.compositions);
  if (values.links.length) await tx.reconstitutionEvent.createMany({ data: values.links });
  if (records.length) await tx.restatement.createMany({ data: records });
}

/**
 * Computes the entries alone, from a fresh state at their base date through `last`, and replaces
 * their rows (levels, ticks, compositions, links), their states and their part of the checkpoints,
 * a week of hours at a time. A value published before (after the launch, or by an earlier
 * back-calculation) that moves beyond the materiality threshold carries revision + 1 and a
 * restatement record. With no engine state yet (a new service), this is the engine's first run.
 */
async function recomputeEntries(
  tx: Tx,
  entries: readonly BackCalcEntry[],
  last: Date,
  now: Date,
  result: BackCalcResult,
  firstRun: boolean,
  log: (line: string) => void,
  held: HeldHistory | undefined,
): Promise<void> {
  const { catalog, indexIds, seriesIds, tickerOf } = await entriesCatalog(tx, entries);
  const states: EngineStates = { indices: new Map(), series: new Map() };
  const start = floorHour(new Date(Math.min(...entries.map((e) => e.base.getTime())) + MS_PER_HOUR - 1));
  const markets = await loadStoredMarkets(tx);
  const feed = new StoredFeed(start, null, markets);
  const inMemory = held && { history: held, markets: new Map(markets.map((m) => [m.conditionId, m])) };

  await tx.composition.deleteMany({ where: { indexId: { in: indexIds } } });
  await tx.reconstitutionEvent.deleteMany({ where: { indexId: { in: indexIds } } });
  const checkpoints: CheckpointRow[] = [];
  // A chunk of hours at a time. The queries of one transaction run in the order they are sent, so
  // the database reads the next chunk's rows and writes the last chunk's values while this chunk
  // is computed: the computation yields to the event loop every few hours to let them go on.
  const chunkAt = (from: Date, after?: SnapshotOverlay): Chunk => {
    const until = new Date(Math.min(last.getTime(), from.getTime() + (CHUNK_HOURS - 1) * MS_PER_HOUR));
    const range = { gte: from, lte: until };
    return {
      from,
      until,
      range,
      overlay: settled(loadOverlay(tx, from, until, after, inMemory)),
      stored: settled(storedValues(tx, indexIds, seriesIds, range)),
    };
  };
  const reason = result.corrected ? CORRECTED_HISTORY : "back-calculation";
  let writing: Promise<void> = Promise.resolve();
  for (let chunk: Chunk | null = chunkAt(start); chunk;) {
    const current: Chunk = chunk;
    const overlay = await timed(result.timing, "load", () => current.overlay);
    const next: Chunk | null = current.until < last ? chunkAt(nextHour(current.until), overlay) : null;
    const values = await computeChunk(current, overlay, { catalog, states, feed, last }, checkpoints, result);
    const waiting = performance.now();
    const records = keepRevisions(values.levels, values.ticks, await current.stored, tickerOf, now, reason);
    await writing;
    result.timing.write += performance.now() - waiting;
    writing = settled(
      writeChunk(tx, { indexIds, seriesIds }, current.range, values, records).then(() =>
        log(`computed and written through ${current.until.toISOString()}`),
      ),
    );
    result.restated += records.length;
    result.values += values.levels.length + values.ticks.length;
    chunk = next;
  }
  const waiting = performance.now();
  await writing;
  result.timing.write += performance.now() - waiting;
  await saveStates(tx, catalog, states);

  if (firstRun) {
    await writeCheckpoints(tx, checkpoints, last);
    const demoState = JSON.parse(JSON.stringify(feed.state())) as Prisma.InputJsonValue;
    await tx.engineState.create({ data: { id: 1, lastTickAt: last, demoSeed: null, demoState } });
    return;
  }
  await mergeCheckpoints(tx, catalog, checkpoints, start);
}

/** The checkpoints hold every entry's state: these entries' parts now come from this computation. */
async function mergeCheckpoints(
  tx: Tx,
  catalog: EngineCatalog,
  checkpoints: readonly CheckpointRow[],
  start: Date,
): Promise<void> {
  const mine = new Map(
    checkpoints.map((c) => [
      c.t.toISOString(),
      {
        indices: JSON.parse(c.indexStates) as Record<string, unknown>,
        series: JSON.parse(c.volStates) as Record<string, unknown>,
      },
    ]),
  );
  for (const cp of await tx.engineCheckpoint.findMany({
    where: { t: { gte: start } },
    select: { t: true, indexStates: true, volStates: true },
  })) {
    const at = mine.get(cp.t.toISOString());
    const indices = { ...(cp.indexStates as Record<string, unknown>) };
    const series = { ...(cp.volStates as Record<string, unknown>) };
    for (const d of catalog.indices)
      if (at?.indices[d.ticker]) indices[d.ticker] = at.indices[d.ticker];
      else delete indices[d.ticker];
    for (const d of catalog.series)
      if (at?.series[d.ticker]) series[d.ticker] = at.series[d.ticker];
      else delete series[d.ticker];
    // written losslessly (the typed Json input would round the states' doubles)
    await updateRowsExact(
      tx,
      "engine_checkpoints",
      ["t", "timestamptz"],
      [
        ["indexStates", "jsonb"],
        ["volStates", "jsonb"],
      ],
      [{ t: cp.t, indexStates: indices, volStates: series }],
    );
  }
}

/** A chunk of hours being recomputed: its span, and its rows as the database sends them. */
interface Chunk {
  from: Date;
  until: Date;
  range: { gte: Date; lte: Date };
  overlay: Promise<SnapshotOverlay>;
  stored: Promise<StoredValues>;
}

/** The computation yields to the event loop after this many hours (so queries already sent go on). */
const YIELD_HOURS = 1;

/**
 * The promise itself, marked as handled: it is awaited later, after other work, and a rejection
 * in between must not count as unhandled (the await still throws it).
 */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The values published before for a span, by `id|time`: what a recomputation keeps the revision of or restates. */
interface StoredValues {
  levels: Map<
    string,
    {
      indexId: string;
      t: Date;
      level: Prisma.Decimal;
      revision: number;
      stale: boolean;
      computedAt: Date;
      compositionVersion: string;
    }
  >;
  ticks: Map<string, StoredTick & { seriesId: string; computedAt: Date }>;
}

async function storedValues(
  tx: Tx,
  indexIds: string[],
  seriesIds: string[],
  range: { gte: Date; lte: Date },
): Promise<StoredValues> {
  const levels = new Map(
    (
      await tx.indexLevel.findMany({
        where: { indexId: { in: indexIds }, t: range },
        select: {
          indexId: true,
          t: true,
          level: true,
          revision: true,
          stale: true,
          computedAt: true,
          compositionVersion: true,
        },
      })
    ).map((l) => [key(l.indexId, l.t), l]),
  );
  if (seriesIds.length === 0) return { levels, ticks: new Map() };
  const ticks = new Map(
    (
      await tx.volatilityTick.findMany({
        where: { seriesId: { in: seriesIds }, computedAt: range },
        select: {
          seriesId: true,
          computedAt: true,
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
  return { levels, ticks };
}

/** Gives recomputed values the stored revision, or revision + 1 and a restatement record when they moved materially. */
function keepRevisions(
  levels: Prisma.IndexLevelCreateManyInput[],
  ticks: Prisma.VolatilityTickCreateManyInput[],
  stored: StoredValues,
  tickerOf: Map<string, string>,
  now: Date,
  reason: string,
): Prisma.RestatementCreateManyInput[] {
  const records: Prisma.RestatementCreateManyInput[] = [];
  const storedLevels = stored.levels;
  for (const l of levels) {
    const s = storedLevels.get(key(l.indexId, l.t as Date));
    if (!s) continue;
    if (levelIsMaterial(s.level, l.level as string)) {
      l.revision = s.revision + 1;
      l.computedAt = now;
      records.push({
        restatedAt: now,
        kind: "index_level",
        ticker: tickerOf.get(l.indexId)!,
        t: l.t as Date,
        revision: s.revision + 1,
        previous: s.level.toFixed(8),
        value: l.level as string,
        detail: {
          revision: s.revision,
          stale: s.stale,
          compositionVersion: s.compositionVersion,
          computedAt: s.computedAt.toISOString(),
          reason,
        },
      });
    } else l.revision = s.revision;
  }
  const storedTicks = stored.ticks;
  for (const x of ticks) {
    const s = storedTicks.get(key(x.seriesId, x.computedAt as Date));
    if (!s) continue;
    if (tickIsMaterial(s, x)) {
      x.revision = s.revision + 1;
      records.push({
        restatedAt: now,
        kind: "volatility",
        ticker: tickerOf.get(x.seriesId)!,
        t: x.computedAt as Date,
        revision: s.revision + 1,
        previous: String(s.headlinePts),
        value: String(x.headlinePts),
        detail: { revision: s.revision, status: s.status, publicationState: s.publicationState, reason },
      });
    } else x.revision = s.revision;
  }
  return records;
}

export function describeBackCalc(r: BackCalcResult): string {
  if (r.tickers.length === 0)
    return "nothing to back-calculate: no entry of the applied catalog has a base date before its launch\n";
  const waiting = new Set(r.waiting.map((w) => w.ticker));
  const done = r.tickers.filter((t) => !waiting.has(t));
  const lines = [
    `${done.length ? `back-calculated ${done.join(", ")}` : "back-calculated no entry"}: ${r.markets} market(s) priced from the venues' history (${r.prices} hourly prices stored, ${r.requests} requests)`,
    `  ${r.listedEarlier} market(s) listed from their first price, ${r.resolutions} resolution(s) dated from the history`,
    ...(r.corrected
      ? [
          `  ${r.corrected} stored price(s) the venue has corrected since: replaced, and the hours from ${r.firstCorrected?.toISOString()} recomputed`,
        ]
      : []),
    r.hours
      ? `  computed ${r.hours} hour(s): ${r.values} value(s), ${r.restated} published value(s) restated`
      : "  the engine computes these hours on its next tick",
  ];
  for (const w of r.waiting)
    lines.push(`  ${w.ticker} waits for a later run (not computed, not marked back-calculated): ${w.reason}`);
  for (const p of r.problems.slice(0, 20)) lines.push(`  ${p}`);
  if (r.problems.length > 20) lines.push(`  … ${r.problems.length - 20} more`);
  return `${lines.join("\n")}\n`;
}

/** Back-calculates the entries whose back-calculation has not run (a catalog just gave them a base date); null when there were none. */
export async function backCalculatePending(
  prisma: Db,
  venues: Venues,
  options: { now?: Date } = {},
): Promise<BackCalcResult | null> {
  const pending = await pendingBackCalcTickers(prisma);
  return pending.length ? backCalculate(prisma, pending, venues, options) : null;
}
