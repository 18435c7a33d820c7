import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { catchUp } from "@/lib/ingest/engine-runner";
import { CURRENT_CORRECTIONS } from "@/lib/ingest/corrections";
import { correctStoredValues } from "@/lib/server/backfill";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (methodology, restatement policy): a database whose values were computed before an engine
// correction is recomputed at start over its whole stored history, and every published decision
// the correction changes is restated (revision + 1, superseded value kept with the correction as
// its reason); a database computed after it needs nothing. A stored database from before the
// exact-decimal gates is simulated by the decision the float comparison published at a boundary:
// an `arbitrage` flag on a tick whose sums sit within the tolerance, older than the 30-day look-back.

const SEED = 737373;
const NOW = new Date("2026-10-20T00:30:00Z");
const START = new Date("2026-09-05T00:00:00Z");
let db: OwnDatabase | undefined;
let prisma: PrismaClient;
const quiet = () => undefined;

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_corrections");
  prisma = db.prisma;
  await catchUp(prisma, { seed: SEED, start: START, now: NOW });
}, 600_000);

afterAll(() => db?.drop());

describe("engine corrections restate a stored database once, at start", () => {
  it("a database computed by this engine reflects every correction: nothing to restate", async () => {
    expect((await prisma.engineState.findUniqueOrThrow({ where: { id: 1 } })).corrections).toBe(CURRENT_CORRECTIONS);
    expect(await correctStoredValues(prisma, quiet, NOW)).toBeNull();
    expect(await prisma.restatement.count()).toBe(0);
  });

  it("a database from before the exact-decimal gates has its wrong decisions restated, old ones too", async () => {
    // the hour the old engine flagged: a published `ok` tick more than 30 days before NOW
    const victim = await prisma.volatilityTick.findFirstOrThrow({
      where: {
        status: "ok",
        publicationState: "published",
        computedAt: { lt: new Date("2026-09-15T00:00:00Z") },
        revision: 0,
      },
      orderBy: { computedAt: "asc" },
      include: { series: { select: { ticker: true } } },
    });
    const wrongFlags = [
      {
        gate: "arbitrage",
        legKey: null,
        publicDetail: "Selling every leg at its bid raises 1.010, more than the 1.000 payout by more than 0.010.",
      },
    ];
    await prisma.volatilityTick.update({
      where: { seriesId_computedAt: { seriesId: victim.seriesId, computedAt: victim.computedAt } },
      data: { status: "flagged", gateFlags: wrongFlags },
    });
    await prisma.engineState.update({ where: { id: 1 }, data: { corrections: 0 } });
    const untouched = await prisma.volatilityTick.count({ where: { revision: 0 } });

    const lines: string[] = [];
    const result = await correctStoredValues(prisma, (l) => lines.push(l), NOW);
    expect(result?.fromHour?.getTime()).toBeLessThanOrEqual(victim.computedAt.getTime());
    expect(result?.ticksRestated).toBe(1);
    expect(result?.levelsRestated).toBe(0);
    expect(lines.join("\n")).toMatch(
      /engine correction applied: recomputed \d+ hours .*1 volatility values and 0 index levels restated/,
    );

    const fixed = await prisma.volatilityTick.findUniqueOrThrow({
      where: { seriesId_computedAt: { seriesId: victim.seriesId, computedAt: victim.computedAt } },
    });
    expect(fixed).toMatchObject({
      status: "ok",
      revision: 1,
      headlinePts: victim.headlinePts,
      publicationState: "published",
    });
    expect(fixed.gateFlags).toEqual([]);
    expect(await prisma.volatilityTick.count({ where: { revision: 0 } })).toBe(untouched - 1);

    const records = await prisma.restatement.findMany();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      kind: "volatility",
      ticker: victim.series.ticker,
      t: victim.computedAt,
      revision: 1,
      previous: String(victim.headlinePts),
      value: String(victim.headlinePts),
    });
    expect(records[0]!.detail).toMatchObject({
      revision: 0,
      status: "flagged",
      gates: ["arbitrage"],
      next: { status: "ok", gates: [], publicationState: "published" },
      reason: expect.stringContaining("engine correction: gates decided in exact decimal"),
    });
    expect((await prisma.engineState.findUniqueOrThrow({ where: { id: 1 } })).corrections).toBe(CURRENT_CORRECTIONS);

    // applied once: the next start restates nothing
    expect(await correctStoredValues(prisma, quiet, NOW)).toBeNull();
    expect(await prisma.restatement.count()).toBe(1);
  }, 600_000);
});
