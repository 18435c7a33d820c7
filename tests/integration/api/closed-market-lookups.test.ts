import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { collect } from "@/lib/ingest/collector";
import { createVenues, type Venues } from "@/lib/venues/connect";
import { uniqueName } from "../support/pg";
import { polyTagIndex, type PolyTagIndex } from "../support/poly-tag-index";
import type { FakeVenues } from "../../support/fake-venues";

// Rule: a held market that closed on its venue without a resolution is looked up at a slowing
// cadence (lib/venues/closed-lookup.ts), not every hour, and its settlement is still recorded
// when it comes. The collector runs hour after hour against the local venues over HTTP.

const HOUR = 3_600_000;
const h0 = Math.floor(Date.now() / HOUR) * HOUR - 40 * HOUR;
const at = (k: number) => new Date(h0 + k * HOUR);
const name = uniqueName("pmb_closed");
let world: PolyTagIndex;
let prisma: PrismaClient;
let fake: FakeVenues;
let venues: Venues;

beforeAll(async () => {
  world = await polyTagIndex(name, "PB-C", ["a", "b"], at(0));
  ({ prisma, fake } = world);
  venues = createVenues({
    polymarketGammaUrl: fake.gammaUrl,
    polymarketClobUrl: fake.clobUrl,
    kalshiApiUrl: fake.kalshiUrl,
    concurrency: 4,
    timeoutMs: 5000,
    backoffMs: 1,
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const lookupsOf = (id: string) =>
  fake.hits.filter((h) => h.startsWith("/gamma/markets/keyset?") && h.includes(`condition_ids=${id}`)).length;

describe("closed markets without a resolution", () => {
  it("are looked up every hour for 6 hours, then every 6 hours, and settle when the venue settles them", async () => {
    await collect(prisma, venues, { now: at(0) });
    // market a closes at hour 1 without a resolution (its event closes: discovery no longer lists it)
    const a = fake.poly.events.find((e) => e.slug === "ev-a")!;
    a.closed = true;
    a.markets[0]!.closed = true;
    const due: number[] = [];
    for (let k = 1; k <= 30; k++) {
      const before = lookupsOf("0xa");
      await collect(prisma, venues, { now: at(k) });
      if (lookupsOf("0xa") > before) due.push(k);
    }
    // first seen closed at hour 1: hourly to hour 7, then hours 13, 19, 25 (not 30 times)
    expect(due).toEqual([1, 2, 3, 4, 5, 6, 7, 13, 19, 25]);
    expect(
      await prisma.market.findUnique({ where: { conditionId: "0xa" }, select: { closedAt: true, resolvedAt: true } }),
    ).toEqual({ closedAt: at(1), resolvedAt: null });
    // the open market b is never looked up: discovery lists it
    expect(lookupsOf("0xb")).toBe(0);

    // the venue settles it YES; the next due look-up (hour 31: 30 hours after it closed) records it, and it is never asked again
    a.markets[0]!.outcomePrices = ["1", "0"];
    for (let k = 31; k <= 33; k++) await collect(prisma, venues, { now: at(k) });
    expect(
      await prisma.market.findUnique({
        where: { conditionId: "0xa" },
        select: { closedAt: true, resolvedAt: true, outcome: true },
      }),
    ).toEqual({ closedAt: null, resolvedAt: at(31), outcome: 1 });
    expect(lookupsOf("0xa")).toBe(due.length + 1);
  }, 240_000);
});
