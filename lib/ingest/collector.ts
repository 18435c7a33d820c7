import "server-only";
import { gzipSync } from "node:zlib";
import Decimal from "decimal.js";
import type { Db } from "@/lib/db";
import { definitionLineOf, universeSelectors } from "@/lib/catalog/compile";
import { universeSchema } from "@/lib/catalog/schema";
import { floorHour } from "@/lib/engine/time-format";
import { legsInForce, updateLegWindows } from "@/lib/engine/volatility/legs";
import type { LegWindow } from "@/lib/engine/volatility/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { recordVenueRuns } from "@/lib/incidents/record-incidents";
import { recordRunsDrift } from "@/lib/incidents/drift";
import { firstLegsOf, storeFirstLegs } from "@/lib/ingest/series-legs";
import { NOTHING_RESTATED, restate, type RestateResult } from "@/lib/ingest/restate";
import { closedLookupDue } from "@/lib/venues/closed-lookup";
import type { Venues } from "@/lib/venues/connect";
import type { DriftFinding, RawResponse } from "@/lib/venues/http";
import type { BookRead, VenueConnector, VenueEventLegs, VenueMarket, VenueName, VenueRun } from "@/lib/venues/types";

type Tx = Prisma.TransactionClient;

export interface CollectResult {
  hour: Date;
  venues: VenueRun[];
  restated: RestateResult;
}

interface Catalogued {
  selectors: Map<VenueName, Set<string>>;
  series: Array<{
    ticker: string;
    name: string;
    venue: VenueName;
    event: string;
    headlineTenorDays: number;
    legs: string[];
    legWindows: LegWindow[];
    settlementDate: Date | null;
  }>;
}

/** What the applied catalog asks of each venue: the index universes' selectors and the series' events. */
async function catalogued(prisma: Db): Promise<Catalogued> {
  const selectors = new Map<VenueName, Set<string>>();
  for (const row of await prisma.index.findMany({
    where: { removedAt: null, ceasedAt: null },
    select: { universe: true },
  })) {
    const u = universeSchema.safeParse(row.universe);
    if (!u.success || u.data.venue === "demo") continue;
    const set = selectors.get(u.data.venue) ?? new Set<string>();
    for (const s of universeSelectors(u.data)) set.add(s);
    selectors.set(u.data.venue, set);
  }
  const series = (
    await prisma.volatilitySeries.findMany({
      where: { ceasedAt: null, venue: { in: ["polymarket", "kalshi"] } },
      select: {
        ticker: true,
        name: true,
        venue: true,
        event: true,
        headlineTenorDays: true,
        legConditionIds: true,
        legWindows: true,
        settlementDate: true,
      },
    })
  ).map((r) => ({
    ticker: r.ticker,
    name: r.name,
    venue: r.venue as VenueName,
    event: r.event,
    headlineTenorDays: r.headlineTenorDays,
    legs: r.legConditionIds,
    legWindows: (r.legWindows as unknown as LegWindow[] | null) ?? [],
    settlementDate: r.settlementDate,
  }));
  return { selectors, series };
}

/** Whether the applied catalog names any venue (the scheduler then collects). */
export async function catalogUsesVenues(prisma: Db): Promise<boolean> {
  const c = await catalogued(prisma);
  return c.selectors.size > 0 || c.series.length > 0;
}

interface SnapshotInput {
  conditionId: string;
  bestBid: string;
  bestAsk: string;
  mid: string;
  depthUsd: string;
  resolved: boolean;
  outcome: number | null;
}

/** A series' legs as a collector run changes them. */
interface SeriesUpdate {
  ticker: string;
  first: boolean;
  legs: string[];
  legWindows: LegWindow[];
  definitionLine: string;
  settlementDate: Date | null;
}

/** What one collector run gathered from every venue, stored together. */
interface Collected {
  runs: VenueRun[];
  inputs: SnapshotInput[];
  marketsSeen: VenueMarket[];
  raws: Array<{ venue: VenueName; raw: RawResponse[]; drift: DriftFinding[]; healthy: Set<string> }>;
  seriesUpdates: SeriesUpdate[];
}

/** The markets one venue's reads found, each once with every selector that found it. */
class FoundMarkets {
  readonly byId = new Map<string, VenueMarket>();

  merge(m: VenueMarket): void {
    const prior = this.byId.get(m.conditionId);
    this.byId.set(
      m.conditionId,
      prior
        ? { ...m, selectors: [...new Set([...prior.selectors, ...m.selectors])], legKey: m.legKey ?? prior.legKey }
        : m,
    );
  }
}

/**
 * The events of the venue's series: their legs join the markets read, and a series' legs change
 * as the venue lists the event now (outcomes listed since join, outcomes gone or resolved NO leave).
 */
async function readSeriesEvents(
  connector: VenueConnector,
  series: Catalogued["series"],
  hour: Date,
  run: VenueRun,
  found: FoundMarkets,
  updates: SeriesUpdate[],
): Promise<void> {
  for (const s of series) {
    let legs: VenueEventLegs | null = null;
    try {
      legs = await connector.event(s.event);
    } catch (error) {
      run.problems.push(`${s.ticker}: ${(error as Error).message}`);
    }
    if (!legs) continue;
    for (const leg of legs.legs)
      found.merge({ ...leg, selectors: [...leg.selectors, `${s.venue}:series-event:${s.event}`] });
    if (s.legs.length === 0 && s.legWindows.length === 0) {
      const first = firstLegsOf(s, legs);
      if (first) updates.push({ ticker: s.ticker, first: true, legWindows: [], ...first });
      continue;
    }
    const next = updateLegWindows(s.legWindows, s.legs, legs.legs, hour);
    const current = legsInForce({ legs: s.legs, legWindows: next.windows }, hour);
    const windowsChanged = next.added.length > 0 || next.removed.length > 0;
    if (!windowsChanged && current.join() === s.legs.join()) continue;
    if (next.added.length)
      run.legChanges.push(`${s.ticker}: ${next.added.join(", ")} joined (listed by the venue since discovery)`);
    if (next.removed.length)
      run.legChanges.push(`${s.ticker}: ${next.removed.join(", ")} left (no longer listed, or resolved NO)`);
    updates.push({
      ticker: s.ticker,
      first: false,
      legs: current,
      legWindows: windowsChanged ? next.windows : s.legWindows,
      definitionLine: definitionLineOf(s.name, legs.title, current.length, s.headlineTenorDays),
      settlementDate: s.settlementDate,
    });
  }
}

/**
 * Markets we hold that discovery no longer lists (closed or resolved): their current state, in
 * batches where the venue has them. A market recorded as resolved is never looked up again; one
 * closed without a resolution is looked up at a slowing cadence until it settles.
 */
async function lookUpHeld(
  prisma: Db,
  connector: VenueConnector,
  hour: Date,
  run: VenueRun,
  found: FoundMarkets,
): Promise<void> {
  const held = await prisma.market.findMany({
    where: { venue: run.venue, resolvedAt: null },
    select: { conditionId: true, closedAt: true },
  });
  const missing = held
    .filter((m) => !found.byId.has(m.conditionId) && closedLookupDue(m.closedAt, hour))
    .map((m) => m.conditionId);
  if (missing.length === 0) return;
  try {
    for (const m of await connector.lookup(missing)) found.merge(m);
  } catch (error) {
    run.problems.push(`lookup of ${missing.length} held market(s): ${(error as Error).message}`);
  }
}

/** This hour's snapshots of the markets read: the book of every open one, the settlement of every resolved one. */
async function readSnapshots(
  connector: VenueConnector,
  markets: readonly VenueMarket[],
  run: VenueRun,
  inputs: SnapshotInput[],
): Promise<void> {
  const open = markets.filter((m) => !m.resolved && !m.closed);
  const reads: BookRead[] = await connector.books(open);
  for (const r of reads) {
    if ("problem" in r) {
      run.stale += 1;
      run.problems.push(`${r.conditionId}: ${r.problem}`);
      continue;
    }
    inputs.push({
      conditionId: r.conditionId,
      bestBid: r.quote.bestBid.toString(),
      bestAsk: r.quote.bestAsk.toString(),
      mid: r.quote.mid.toString(),
      depthUsd: r.quote.depthUsd.toFixed(2),
      resolved: false,
      outcome: null,
    });
    run.snapshots += 1;
  }
  for (const m of markets.filter((x) => x.resolved)) {
    const p = new Decimal(m.outcome ?? 0).toString();
    inputs.push({
      conditionId: m.conditionId,
      bestBid: p,
      bestAsk: p,
      mid: p,
      depthUsd: "0.00",
      resolved: true,
      outcome: m.outcome,
    });
    run.resolved += 1;
  }
}

/** One venue's part of a collector run: its universes, its series' events, its held markets, their books. */
async function collectVenue(
  prisma: Db,
  venues: Venues,
  venue: VenueName,
  wanted: Catalogued,
  hour: Date,
  out: Collected,
): Promise<void> {
  const { http, connector } = venues.connect(venue);
  const run: VenueRun = {
    venue,
    requests: 0,
    markets: 0,
    newMarkets: 0,
    snapshots: 0,
    resolved: 0,
    stale: 0,
    legChanges: [],
    problems: [],
  };
  const found = new FoundMarkets();
  const discovered = await connector.discover([...(wanted.selectors.get(venue) ?? [])]);
  run.problems.push(...discovered.problems);
  discovered.markets.forEach((m) => found.merge(m));
  const series = wanted.series.filter((x) => x.venue === venue);
  await readSeriesEvents(connector, series, hour, run, found, out.seriesUpdates);
  await lookUpHeld(prisma, connector, hour, run, found);
  const markets = [...found.byId.values()];
  run.markets = markets.length;
  out.marketsSeen.push(...markets);
  await readSnapshots(connector, markets, run, out.inputs);
  run.requests = http.requests;
  run.problems.push(...http.drift.map((d) => `drift: ${d.endpoint} ${d.field}: ${d.detail}`));
  out.raws.push({ venue, raw: http.raw, drift: http.drift, healthy: http.healthy });
  out.runs.push(run);
}

/** Stores what a run gathered in one transaction: markets, series legs, the venues' runs and drift, raw responses, snapshots. */
async function storeCollected(prisma: Db, hour: Date, c: Collected): Promise<RestateResult> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
      const created = await upsertMarkets(tx, c.marketsSeen, hour);
      for (const run of c.runs) run.newMarkets = created.get(run.venue) ?? 0;
      for (const u of c.seriesUpdates) {
        if (u.first) await storeFirstLegs(tx, u.ticker, u);
        else
          await tx.volatilitySeries.update({
            where: { ticker: u.ticker },
            data: {
              legConditionIds: u.legs,
              legWindows: u.legWindows as unknown as Prisma.InputJsonValue,
              definitionLine: u.definitionLine,
            },
          });
      }
      await recordVenueRuns(tx, c.runs, new Date());
      await recordRunsDrift(tx, c.raws, new Date());
      for (const { venue, raw } of c.raws) {
        if (raw.length === 0) continue;
        await tx.venueRawResponse.create({
          data: {
            venue,
            hour,
            collectedAt: new Date(),
            responses: raw.length,
            gzBase64: gzipSync(raw.map((r) => JSON.stringify(r)).join("\n")).toString("base64"),
          },
        });
      }
      return storeSnapshots(tx, hour, c.inputs);
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

/**
 * One collector run: per venue, discovers the catalog's universes and series events, records
 * new markets and resolutions, reads the book of every open market and stores this hour's
 * snapshots (a changed read of an hour already computed restates it). Venue failures are
 * reported per market or selector; they never stop the run or another venue. Requests go through
 * `venues`, within each venue's budget shared with the process's other jobs.
 */
export async function collect(prisma: Db, venues: Venues, options: { now?: Date } = {}): Promise<CollectResult> {
  const hour = floorHour(options.now ?? new Date());
  const wanted = await catalogued(prisma);
  const asked = new Set<VenueName>([...wanted.selectors.keys(), ...wanted.series.map((s) => s.venue)]);
  const collected: Collected = { runs: [], inputs: [], marketsSeen: [], raws: [], seriesUpdates: [] };
  await Promise.all([...asked].map((venue) => collectVenue(prisma, venues, venue, wanted, hour, collected)));
  const restated = await storeCollected(prisma, hour, collected);
  return { hour, venues: collected.runs.sort((a, b) => a.venue.localeCompare(b.venue)), restated };
}

/** New markets are listed at the hour they were first seen; a resolution is recorded once. */
async function upsertMarkets(tx: Tx, markets: VenueMarket[], hour: Date): Promise<Map<VenueName, number>> {
  const created = new Map<VenueName, number>();
  if (markets.length === 0) return created;
  const existing = new Map(
    (
      await tx.market.findMany({
        where: { conditionId: { in: markets.map((m) => m.conditionId) } },
        select: { conditionId: true, selectors: true, resolvedAt: true, legKey: true, closedAt: true },
      })
    ).map((m) => [m.conditionId, m]),
  );
  const fresh = markets.filter((m) => !existing.has(m.conditionId));
  if (fresh.length)
    await tx.market.createMany({
      data: fresh.map((m) => ({
        conditionId: m.conditionId,
        venue: m.venue,
        venueRef: m.venueRef,
        label: m.label,
        legKey: m.legKey,
        eventKey: m.eventKey,
        selectors: m.selectors,
        settlementDate: m.settlementDate,
        listedAt: hour,
        resolvedAt: m.resolved ? hour : null,
        outcome: m.outcome,
        closedAt: m.closed && !m.resolved ? hour : null,
      })),
      skipDuplicates: true,
    });
  for (const m of fresh) created.set(m.venue, (created.get(m.venue) ?? 0) + 1);
  for (const m of markets) {
    const row = existing.get(m.conditionId);
    if (!row) continue;
    const selectors = [...new Set([...row.selectors, ...m.selectors])];
    const resolvedNow = m.resolved && row.resolvedAt === null;
    // first seen closed and unsettled: its look-ups slow down from this hour; open again (or settled): back to every run
    const closedAt = m.closed && !m.resolved ? (row.closedAt ?? hour) : null;
    const closedChanged = (closedAt?.getTime() ?? null) !== (row.closedAt?.getTime() ?? null);
    if (
      selectors.length === row.selectors.length &&
      !resolvedNow &&
      !closedChanged &&
      (row.legKey !== null || m.legKey === null)
    )
      continue;
    await tx.market.update({
      where: { conditionId: m.conditionId },
      data: {
        selectors,
        legKey: row.legKey ?? m.legKey,
        closedAt,
        ...(resolvedNow ? { resolvedAt: hour, outcome: m.outcome } : {}),
      },
    });
  }
  return created;
}

/** Stores the hour's reads: new ones inserted, a different read of a stored hour revised (and restated when computed). */
async function storeSnapshots(tx: Tx, hour: Date, inputs: SnapshotInput[]): Promise<RestateResult> {
  if (inputs.length === 0) return NOTHING_RESTATED;
  const stored = new Map(
    (
      await tx.marketSnapshot.findMany({
        where: { observedAt: hour, conditionId: { in: inputs.map((i) => i.conditionId) } },
      })
    ).map((s) => [s.conditionId, s]),
  );
  const fresh: Prisma.MarketSnapshotCreateManyInput[] = [];
  let revised = false;
  for (const i of inputs) {
    const s = stored.get(i.conditionId);
    const values = {
      bestBid: i.bestBid,
      bestAsk: i.bestAsk,
      mid: i.mid,
      depthUsd: i.depthUsd,
      resolved: i.resolved,
      outcome: i.outcome,
    };
    if (!s) {
      fresh.push({ conditionId: i.conditionId, observedAt: hour, ...values, ingested: true });
      continue;
    }
    const same =
      s.bestBid.equals(i.bestBid) &&
      s.bestAsk.equals(i.bestAsk) &&
      s.mid.equals(i.mid) &&
      s.depthUsd.equals(i.depthUsd) &&
      s.resolved === i.resolved &&
      s.outcome === i.outcome;
    if (same) continue;
    await tx.marketSnapshot.update({
      where: { conditionId_observedAt: { conditionId: i.conditionId, observedAt: hour } },
      data: { ...values, revision: s.revision + 1, ingested: true },
    });
    revised = true;
  }
  if (fresh.length) await tx.marketSnapshot.createMany({ data: fresh, skipDuplicates: true });
  const engine = await tx.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true } });
  if (engine && hour <= engine.lastTickAt && (revised || fresh.length > 0))
    return restate(tx, hour, { now: new Date(Math.max(Date.now(), hour.getTime())) });
  return NOTHING_RESTATED;
}

export function describeCollect(r: CollectResult): string {
  const lines = [`collected ${r.hour.toISOString()}`];
  for (const v of r.venues) {
    lines.push(
      `  ${v.venue}: ${v.requests} requests, ${v.markets} markets (${v.newMarkets} new), ${v.snapshots} books, ${v.resolved} resolved, ${v.stale} stale`,
    );
    for (const c of v.legChanges) lines.push(`    legs of ${c}`);
    for (const p of v.problems.slice(0, 20)) lines.push(`    ${p}`);
    if (v.problems.length > 20) lines.push(`    … ${v.problems.length - 20} more`);
  }
  if (r.restated.hours) lines.push(`  restated ${r.restated.hours} hour(s) from ${r.restated.fromHour?.toISOString()}`);
  return `${lines.join("\n")}\n`;
}
