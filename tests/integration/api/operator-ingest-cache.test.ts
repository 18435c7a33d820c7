import Decimal from "decimal.js";
import { afterAll, describe, expect, it } from "vitest";
import { catchUp } from "@/lib/ingest/engine-runner";
import { holdOwnRoot } from "../support/api";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (lib/operator/commands.ts): the engine's writers only write; the operator's `ingest` clears
// the read cache after, so a restated latest level is served at once, not when the cache's TTL
// ends. The root's clock is held still here: without the clear, the level read before the ingest
// would be served for ever.

const SEED = 737373;
const NOW = new Date("2026-10-15T12:20:00Z");
const START = new Date("2026-10-12T12:00:00Z");

let own: OwnDatabase | null = null;
let restore: (() => Promise<void>) | null = null;

afterAll(async () => {
  await restore?.();
  await own?.drop();
});

describe("the operator's ingest", () => {
  it("serves a restated latest level on the next read, with the read cache's time held still", async () => {
    own = await ownMigratedDatabase("pmb_ingest_cache");
    await catchUp(own.prisma, { now: NOW, seed: SEED, start: START });
    const { lastTickAt } = await own.prisma.engineState.findUniqueOrThrow({ where: { id: 1 } });
    const level = await own.prisma.indexLevel.findFirstOrThrow({
      where: { t: lastTickAt, totalMarketsCount: { gte: 2 } },
      orderBy: [{ totalMarketsCount: "asc" }, { indexId: "asc" }],
      include: { index: { select: { ticker: true } } },
    });
    const composition = await own.prisma.composition.findFirstOrThrow({
      where: { indexId: level.indexId, version: level.compositionVersion },
      include: { members: true },
    });
    const constituent = await own.prisma.marketSnapshot.findFirstOrThrow({
      where: {
        observedAt: lastTickAt,
        resolved: false,
        conditionId: { in: composition.members.map((m) => m.conditionId) },
      },
      orderBy: { conditionId: "asc" },
    });

    // this test's root on its own database, its clock held still
    const { parseConfig } = await import("@/lib/config");
    const { runCommand } = await import("@/lib/operator/commands");
    const { indexLatest } = await import("@/lib/data/indices");
    const held = await holdOwnRoot(parseConfig({ ...process.env, DATABASE_URL: own.url, REDIS_URL: "" }), {
      now: () => NOW.getTime(),
    });
    restore = held.restore;
    const mine = held.root;

    const served = await indexLatest(mine.read, level.index.ticker);
    expect(served?.indexLevel).toBe(new Decimal(level.level.toString()).toFixed(8));

    const mid = new Decimal(constituent.mid.toString());
    const moved = mid.greaterThan(0.5) ? mid.minus(0.3) : mid.plus(0.3);
    const correction = JSON.stringify({
      observedAt: lastTickAt.toISOString(),
      conditionId: constituent.conditionId,
      legKey: null,
      label: "corrected",
      bestBid: moved.minus(0.01).toFixed(8),
      bestAsk: moved.plus(0.01).toFixed(8),
      mid: moved.toFixed(8),
      depthUsd: constituent.depthUsd.toString(),
      settlementDate: null,
    });
    const result = await runCommand("ingest", { file: "fix.jsonl", text: `${correction}\n` });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/1 revised/);

    const restated = await own.prisma.indexLevel.findUniqueOrThrow({
      where: { indexId_t: { indexId: level.indexId, t: lastTickAt } },
    });
    expect(restated.revision).toBeGreaterThan(level.revision);
    expect(restated.level.toString()).not.toBe(level.level.toString());
    const after = await indexLatest(mine.read, level.index.ticker);
    expect(after?.indexLevel).toBe(new Decimal(restated.level.toString()).toFixed(8));
  }, 300_000);
});
