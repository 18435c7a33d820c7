import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { NameAsTextPool } from "@/lib/db/pg-pool";
import { catchUp } from "@/lib/ingest/engine-runner";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { LEVEL_MATERIALITY, VOLATILITY_MATERIALITY_PTS } from "@/lib/ingest/restate";
import { buildMissingBundles } from "@/lib/snapshots/build-bundles";
import { dropDatabase, migratedDatabase, uniqueName } from "../support/pg";

// Ingested snapshots drive the engine: a correction recomputes from its hour (from a checkpoint,
// not from inception) and restates what moved beyond the materiality threshold; a snapshot for an
// hour not yet computed feeds that hour's tick. Each scenario has its own database.

const SEED = 424242;
const NOW = new Date("2026-10-15T12:20:00Z");
const START = new Date("2026-10-09T12:00:00Z");
const HOUR = 3_600_000;

interface TestDb {
  name: string;
  prisma: PrismaClient;
  pool: NameAsTextPool;
}
const opened: TestDb[] = [];

async function freshDb(prefix: string): Promise<TestDb> {
  const name = uniqueName(prefix);
  const { pool, prisma } = await migratedDatabase(name);
  const d = { name, prisma, pool };
  opened.push(d);
  return d;
}

afterAll(async () => {
  for (const d of opened) {
    await d.prisma.$disconnect();
    await d.pool.end().catch(() => undefined);
    await dropDatabase(d.name);
  }
});

/** A snapshot line that moves a stored snapshot's mid by `shift`, keeping a valid book. */
function corrected(
  s: { conditionId: string; observedAt: Date; mid: { toString(): string }; depthUsd: { toString(): string } },
  shift: number,
  label: string,
): string {
  const mid = new Decimal(s.mid.toString());
  const next = Decimal.min(0.97, Decimal.max(0.03, mid.greaterThan(0.5) ? mid.minus(shift) : mid.plus(shift)));
  return JSON.stringify({
    observedAt: s.observedAt.toISOString(),
    conditionId: s.conditionId,
    legKey: null,
    label,
    bestBid: next.minus(0.01).toFixed(8),
    bestAsk: next.plus(0.01).toFixed(8),
    mid: next.toFixed(8),
    depthUsd: s.depthUsd.toString(),
    settlementDate: null,
  });
}

/** An index constituent and a partition leg quoted at t, as stored by the demo feed. */
async function targetsAt(prisma: PrismaClient, t: Date) {
  const level = await prisma.indexLevel.findFirstOrThrow({
    where: { t, totalMarketsCount: { gte: 2 } },
    orderBy: [{ totalMarketsCount: "asc" }, { indexId: "asc" }],
  });
  const composition = await prisma.composition.findFirstOrThrow({
    where: { indexId: level.indexId, version: level.compositionVersion },
    include: { members: true },
  });
  const ids = composition.members.map((m) => m.conditionId);
  const constituent = await prisma.marketSnapshot.findFirstOrThrow({
    where: { observedAt: t, conditionId: { in: ids }, resolved: false },
    orderBy: { conditionId: "asc" },
  });
  const series = await prisma.volatilitySeries.findFirstOrThrow({
    where: { listed: true, ticks: { some: { computedAt: t, publicationState: "published" } } },
    orderBy: { ticker: "asc" },
  });
  const leg = await prisma.marketSnapshot.findFirstOrThrow({
    where: { observedAt: t, conditionId: { in: series.legConditionIds } },
    orderBy: { mid: "desc" },
  });
  return { indexId: level.indexId, constituent, seriesId: series.id, leg };
}

// Rows are compared across databases by ticker (ids are random per database).
const levelsOf = (prisma: PrismaClient, indexId?: string) =>
  prisma.indexLevel.findMany({
    where: indexId ? { indexId } : {},
    orderBy: [{ index: { ticker: "asc" } }, { t: "asc" }],
    select: { index: { select: { ticker: true } }, t: true, level: true, revision: true },
  });
const ticksOf = (prisma: PrismaClient) =>
  prisma.volatilityTick.findMany({
    orderBy: [{ series: { ticker: "asc" } }, { computedAt: "asc" }],
    select: {
      series: { select: { ticker: true } },
      computedAt: true,
      headlinePts: true,
      tenors: true,
      status: true,
      publicationState: true,
      revision: true,
    },
  });

/** JSON copy with every number at 12 significant digits. */
const to12 = (v: unknown) =>
  JSON.parse(JSON.stringify(v), (_k, x: unknown) => (typeof x === "number" ? Number(x.toPrecision(12)) : x)) as unknown;

describe("ingested snapshots drive the engine", () => {
  let a: TestDb;
  let b: TestDb;
  let t0: Date;
  let file: string;

  beforeAll(async () => {
    [a, b] = [await freshDb("pmb_restate_a"), await freshDb("pmb_restate_b")];
    await catchUp(a.prisma, { now: NOW, seed: SEED, start: START });
    const engine = await a.prisma.engineState.findUniqueOrThrow({ where: { id: 1 } });
    t0 = new Date(engine.lastTickAt.getTime() - 30 * HOUR);
    const { constituent, leg } = await targetsAt(a.prisma, t0);
    file = [corrected(constituent, 0.3, "constituent"), corrected(leg, 0.25, "leg")].join("\n");
  }, 240_000);

  it("restates from the corrected hour exactly what a computation with the corrected input from inception gives", async () => {
    const before = await levelsOf(a.prisma);
    const result = await ingestFile(a.prisma, "fix.jsonl", file, { now: NOW });
    expect(result).toMatchObject({ inserted: 0, revised: 2, unchanged: 0 });
    expect(result.restated.fromHour?.toISOString()).toBe(t0.toISOString());
    expect(result.restated.levelsRestated).toBeGreaterThan(0);
    expect(result.restated.ticksRestated).toBeGreaterThan(0);
    const checkpoint = await a.prisma.engineCheckpoint.findFirst({ where: { t: { lt: t0 } }, orderBy: { t: "desc" } });
    expect(checkpoint, "the recomputation starts from a checkpoint, not from inception").not.toBeNull();
    expect(result.restated.hours).toBe((NOW.getTime() - (NOW.getTime() % HOUR) - t0.getTime()) / HOUR + 1);

    // B: the same market computed up to the hour before t0, the corrected snapshots ingested
    // ahead of time (they feed the next tick), then computed on to now.
    await catchUp(b.prisma, { now: new Date(t0.getTime() - HOUR), seed: SEED, start: START });
    const early = await ingestFile(b.prisma, "fix.jsonl", file, { now: NOW });
    expect(early).toMatchObject({ inserted: 2, revised: 0 });
    expect(early.restated.fromHour).toBeNull();
    await catchUp(b.prisma, { now: NOW, seed: SEED });

    const [levelsA, levelsB] = [await levelsOf(a.prisma), await levelsOf(b.prisma)];
    expect(levelsA.length).toBe(levelsB.length);
    const beforeByKey = new Map(before.map((l) => [`${l.index.ticker}|${l.t.toISOString()}`, l]));
    let restated = 0;
    levelsA.forEach((la, i) => {
      const lb = levelsB[i]!;
      expect(la.t.toISOString()).toBe(lb.t.toISOString());
      expect(la.index.ticker).toBe(lb.index.ticker);
      const first = beforeByKey.get(`${la.index.ticker}|${la.t.toISOString()}`)!;
      if (la.t < t0) {
        expect(la.revision).toBe(0);
        expect(la.level.toString()).toBe(first.level.toString());
        expect(la.level.toString()).toBe(lb.level.toString());
      } else if (la.revision === 1) {
        restated++;
        expect(la.level.toString(), "a restated level equals the from-scratch computation").toBe(lb.level.toString());
        expect(
          new Decimal(first.level.toString()).minus(la.level.toString()).abs().greaterThan(LEVEL_MATERIALITY),
        ).toBe(true);
      } else {
        expect(la.revision).toBe(0);
        expect(la.level.toString()).toBe(first.level.toString());
        expect(
          new Decimal(la.level.toString()).minus(lb.level.toString()).abs().lessThanOrEqualTo(LEVEL_MATERIALITY),
        ).toBe(true);
      }
    });
    expect(restated).toBe(result.restated.levelsRestated);

    const [ticksA, ticksB] = [await ticksOf(a.prisma), await ticksOf(b.prisma)];
    expect(ticksA.length).toBe(ticksB.length);
    ticksA.forEach((ta, i) => {
      const tb = ticksB[i]!;
      expect(tb.revision).toBe(0);
      if (ta.revision === 1) {
        expect(ta.computedAt >= t0).toBe(true);
        expect({ ...ta, revision: 0 }).toEqual(tb);
      } else {
        expect(Math.abs(ta.headlinePts - tb.headlinePts)).toBeLessThanOrEqual(VOLATILITY_MATERIALITY_PTS);
        expect(ta.status).toBe(tb.status);
      }
    });
    expect(ticksA.filter((x) => x.revision === 1).length).toBe(result.restated.ticksRestated);

    // the engines carry on from the same state, and the chain-link records agree
    const states = async (p: PrismaClient) => ({
      indices: await p.index.findMany({
        orderBy: { ticker: "asc" },
        select: { ticker: true, engineState: true, seriesPartiallyResolved: true, ceasedAt: true },
      }),
      series: await p.volatilitySeries.findMany({
        orderBy: { ticker: "asc" },
        select: { ticker: true, engineState: true, retiredAt: true },
      }),
      links: await p.reconstitutionEvent.findMany({
        orderBy: [{ index: { ticker: "asc" } }, { completedAt: "asc" }],
        select: {
          index: { select: { ticker: true } },
          completedAt: true,
          fromVersion: true,
          toVersion: true,
          levelAtLink: true,
          linkFactor: true,
          oldBasketValue: true,
          newBasketValue: true,
          detail: true,
        },
      }),
    });
    const [sa, sb] = [await states(a.prisma), await states(b.prisma)];
    // Engine states pass through Prisma's JSON columns, whose float parsing may move the last bit
    expect(to12(sa.series)).toEqual(to12(sb.series));
    expect(sa.indices).toEqual(sb.indices);
    expect(sa.links.map((l) => JSON.stringify(l))).toEqual(sb.links.map((l) => JSON.stringify(l)));

    // the superseded values are kept, and the month's bundle lists them
    const records = await a.prisma.restatement.findMany({
      orderBy: [{ kind: "asc" }, { ticker: "asc" }, { t: "asc" }],
    });
    expect(records.length).toBe(result.restated.levelsRestated + result.restated.ticksRestated);
    for (const r of records.filter((x) => x.kind === "index_level")) {
      // both as published: eight decimals, trailing zeros kept
      expect(r.previous).toBe(beforeByKey.get(`${r.ticker}|${r.t.toISOString()}`)!.level.toFixed(8));
      expect(r.value).toBe(
        levelsA.find((l) => l.index.ticker === r.ticker && l.t.getTime() === r.t.getTime())!.level.toFixed(8),
      );
      expect(r.revision).toBe(1);
    }
    expect(await buildMissingBundles(a.prisma, new Date("2026-11-02T00:00:00Z"))).toContain("2026-10");
    const csvFile = await a.prisma.snapshotFile.findUniqueOrThrow({
      where: { month_name: { month: "2026-10", name: "restatements.csv" } },
    });
    expect(csvFile.rows).toBe(records.length);
    expect(csvFile.content.split("\r\n")[0]).toBe(
      "restated_at,kind,ticker,t,revision,previous_value,value,reason,detail_json",
    );

    // the same file again changes nothing
    const again = await ingestFile(a.prisma, "fix.jsonl", file, { now: NOW });
    expect(again).toMatchObject({ inserted: 0, revised: 0, unchanged: 2 });
    expect(again.restated.fromHour).toBeNull();
    expect(await levelsOf(a.prisma)).toEqual(levelsA);
  }, 240_000);

  it("leaves published values alone below the materiality threshold and beyond the look-back", async () => {
    const c = await freshDb("pmb_restate_c");
    await catchUp(c.prisma, { now: NOW, seed: SEED, start: new Date(NOW.getTime() - 3 * 86_400_000) });
    const engine = await c.prisma.engineState.findUniqueOrThrow({ where: { id: 1 } });
    const t = new Date(engine.lastTickAt.getTime() - 5 * HOUR);
    const { constituent, indexId, leg } = await targetsAt(c.prisma, t);
    const before = await levelsOf(c.prisma, indexId);
    const links = await c.prisma.reconstitutionEvent.findMany({ orderBy: { id: "asc" } });

    // a partition leg no index holds: volatility only, not a digit of any index or chain link moves
    const legOnly = await ingestFile(c.prisma, "leg.jsonl", corrected(leg, 0.2, "leg"), { now: NOW });
    expect(legOnly.restated).toMatchObject({ levelsRestated: 0, linksRewritten: 0, added: 0 });
    expect(legOnly.restated.ticksRestated).toBeGreaterThan(0);
    expect(await c.prisma.reconstitutionEvent.findMany({ orderBy: { id: "asc" } })).toEqual(links);

    const tiny = await ingestFile(c.prisma, "tiny.jsonl", corrected(constituent, 0.00000001, "constituent"), {
      now: NOW,
    });
    expect(tiny.revised).toBe(1);
    expect(tiny.restated.hours).toBeGreaterThan(0);
    expect(tiny.restated.levelsRestated).toBe(0);
    expect(await levelsOf(c.prisma, indexId)).toEqual(before);

    const late = await ingestFile(c.prisma, "late.jsonl", corrected(constituent, 0.3, "constituent"), {
      now: new Date(NOW.getTime() + 31 * 86_400_000),
    });
    expect(late.revised).toBe(1);
    expect(late.restated.fromHour, "older than the 30-day look-back: corrected going forward only").toBeNull();
    expect(await levelsOf(c.prisma, indexId)).toEqual(before);
    const stored = await c.prisma.marketSnapshot.findUniqueOrThrow({
      where: { conditionId_observedAt: { conditionId: constituent.conditionId, observedAt: t } },
    });
    expect(stored).toMatchObject({ revision: 2, ingested: true });
  }, 240_000);
});
