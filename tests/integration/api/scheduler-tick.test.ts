import { afterAll, describe, expect, it } from "vitest";
import { catchUp } from "@/lib/ingest/engine-runner";
import { waitFor } from "@/tests/support/wait-for";
import { holdOwnRoot } from "../support/api";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (lib/ingest/scheduler.ts): the engine's writers only write; the scheduler's tick clears the
// read cache after them, so the hour a tick computes is served at once. The root's clock is held
// still here: without the clear, the latest level read before the tick would be served for ever.

const HOUR = 3_600_000;

let own: OwnDatabase | null = null;
let restore: (() => Promise<void>) | null = null;

afterAll(async () => {
  await restore?.();
  await own?.drop();
});

describe("the scheduler's tick", () => {
  it("computes the hours due and serves the newest one on the next read, with the read cache's time held still", async () => {
    own = await ownMigratedDatabase("pmb_scheduler_tick");
    const { parseConfig } = await import("@/lib/config");
    const { startScheduler } = await import("@/lib/ingest/scheduler");
    const { indexLatest } = await import("@/lib/data/indices");
    const config = parseConfig({
      ...process.env,
      DATABASE_URL: own.url,
      REDIS_URL: "",
      DEMO_MARKET: "1",
      ENGINE_TICK_SECONDS: "1",
    });

    // the demo computed through two hours ago: the tick has the hours since to compute
    const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
    await catchUp(own.prisma, {
      seed: config.DEMO_SEED,
      start: new Date(thisHour - 6 * HOUR),
      now: new Date(thisHour - 2 * HOUR),
    });
    const ticker = (await own.prisma.index.findFirstOrThrow({ where: { listed: true }, orderBy: { ticker: "asc" } }))
      .ticker;

    const now = Date.now();
    const held = await holdOwnRoot(config, { now: () => now }); // its shutdown stops the scheduler
    restore = held.restore;
    const mine = held.root;
    const first = await indexLatest(mine.read, ticker);
    expect(Date.parse(first!.computedAt)).toBe(thisHour - 2 * HOUR);

    startScheduler(mine);
    await waitFor(
      "the tick's newest hour served",
      async () => {
        const latest = await indexLatest(mine.read, ticker);
        return latest !== null && Date.parse(latest.computedAt) >= thisHour;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const { lastTickAt } = await own.prisma.engineState.findUniqueOrThrow({ where: { id: 1 } });
    expect(Date.parse((await indexLatest(mine.read, ticker))!.computedAt)).toBe(lastTickAt.getTime());
  }, 300_000);
});
