import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { collect } from "@/lib/ingest/collector";
import { fillMissedHours } from "@/lib/ingest/fill-gaps";
import { createVenues } from "@/lib/venues/connect";
import { uniqueName } from "../support/pg";
import { polyTagIndex, type PolyTagIndex } from "../support/poly-tag-index";
import type { FakeVenues } from "../../support/fake-venues";

// Rule: a venue's requests-per-second budget is the process's, not a job's. A collector run and a
// gap fill running at once, each with enough requests to spend the budget alone, together stay
// within POLYMARKET_RPS at the venue (a local HTTP server stands in for it).

const HOUR = 3_600_000;
const RPS = 10;
const MARKETS = 8;
const h0 = Math.floor(Date.now() / HOUR) * HOUR - 10 * HOUR;
const at = (k: number) => new Date(h0 + k * HOUR);
const name = uniqueName("pmb_budget");
let world: PolyTagIndex;
let prisma: PrismaClient;
let fake: FakeVenues;

beforeAll(async () => {
  world = await polyTagIndex(
    name,
    "PB-B",
    Array.from({ length: MARKETS }, (_, i) => String(i)),
    at(0),
  );
  ({ prisma, fake } = world);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe("the venues' request budget", () => {
  it("is shared by the jobs of a process: a collector run and a gap fill at once stay within POLYMARKET_RPS together", async () => {
    const venues = createVenues({
      polymarketGammaUrl: fake.gammaUrl,
      polymarketClobUrl: fake.clobUrl,
      kalshiApiUrl: fake.kalshiUrl,
      concurrency: 16,
      rps: { polymarket: RPS },
      timeoutMs: 5000,
      backoffMs: 1,
    });
    await collect(prisma, venues, { now: at(0) });
    // Each job alone makes about MARKETS + 1 requests: discovery one event a page, the gap fill one
    // history read per market (the batch form refused); each could spend a second's budget by itself.
    fake.pageSize.gamma = 1;
    fake.history.refuseBatch = true;
    const from = fake.received.length;
    const [collected, filled] = await Promise.all([
      collect(prisma, venues, { now: at(3) }),
      fillMissedHours(prisma, venues, { now: at(3) }),
    ]);
    const received = fake.received.slice(from);
    expect(collected.venues[0]!.problems).toEqual([]);
    expect(filled.markets).toBe(MARKETS);
    expect(collected.venues[0]!.requests + filled.requests).toBe(received.length);
    expect(filled.requests).toBeGreaterThan(RPS / 2);
    expect(collected.venues[0]!.requests).toBeGreaterThan(RPS / 2);

    // the two jobs ran at once: a history read reached the venue between two discovery pages
    const gamma = received.filter((r) => r.path.startsWith("/gamma/events/keyset")).map((r) => r.at);
    const history = received.filter((r) => r.path.includes("prices-history")).map((r) => r.at);
    expect(Math.min(...history)).toBeLessThan(Math.max(...gamma));
    // at most RPS arrivals in any second (one more allowed for the network's jitter); with a
    // budget per job, both jobs' first requests alone arrive within a second
    const times = received.map((r) => r.at).sort((a, b) => a - b);
    const busiest = Math.max(...times.map((t, i) => times.filter((u, j) => j >= i && u < t + 1000).length));
    expect(busiest).toBeLessThanOrEqual(RPS + 1);
  }, 60_000);
});
