import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyCatalog } from "@/lib/catalog/apply-catalog";
import { validateCatalog } from "@/lib/catalog/validate";
import { NameAsTextPool } from "@/lib/db/pg-pool";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { collect } from "@/lib/ingest/collector";
import { createVenues, type Venues } from "@/lib/venues/connect";
import { dropDatabase, migratedDatabase, uniqueName } from "../support/pg";
import { polyBook, startFakeVenues, type FakeVenues } from "../../support/fake-venues";

// Rule: a held market that closed on its venue without a resolution is looked up at a slowing
// cadence (lib/venues/closed-lookup.ts), not every hour, and its settlement is still recorded
// when it comes. The collector runs hour after hour against the local venues over HTTP.

const HOUR = 3_600_000;
const h0 = Math.floor(Date.now() / HOUR) * HOUR - 40 * HOUR;
const at = (k: number) => new Date(h0 + k * HOUR);
const name = uniqueName("pmb_closed");
let pool: NameAsTextPool;
let prisma: PrismaClient;
let fake: FakeVenues;
let venues: Venues;

beforeAll(async () => {
  ({ pool, prisma } = await migratedDatabase(name));
  fake = await startFakeVenues();
  venues = createVenues({ polymarketGammaUrl: fake.gammaUrl, polymarketClobUrl: fake.clobUrl, kalshiApiUrl: fake.kalshiUrl, concurrency: 4, timeoutMs: 5000, backoffMs: 1 });
  const end = new Date(h0 + 60 * 86_400_000).toISOString();
  for (const id of ["a", "b"]) {
    fake.poly.events.push({ slug: `ev-${id}`, title: `Event ${id}`, negRisk: false, tags: ["crypto"], endDate: end, markets: [{ conditionId: `0x${id}`, question: `Market ${id}?`, yesToken: `tok-${id}`, endDate: end }] });
    fake.poly.books.set(`tok-${id}`, polyBook(0.4, 0.43));
  }
  const catalog = validateCatalog("closed.json", JSON.stringify({ version: 1, indices: [{ ticker: "PB-C", name: "Crypto", description: "Test.", inceptionAt: at(0).toISOString(), maturityType: "PERPETUAL", universe: { venue: "polymarket", tagSlugs: ["crypto"] } }] }));
  await prisma.$transaction((tx) => applyCatalog(tx, "closed.json", catalog, { start: at(0), events: new Map(), nextHour: new Date(0) }));
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await prisma?.$disconnect();
  await pool?.end().catch(() => undefined);
  await dropDatabase(name);
});

const lookupsOf = (id: string) => fake.hits.filter((h) => h.startsWith("/gamma/markets?") && h.includes(`condition_ids=${id}`)).length;

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
    expect(await prisma.market.findUnique({ where: { conditionId: "0xa" }, select: { closedAt: true, resolvedAt: true } })).toEqual({ closedAt: at(1), resolvedAt: null });
    // the open market b is never looked up: discovery lists it
    expect(lookupsOf("0xb")).toBe(0);

    // the venue settles it YES; the next due look-up (hour 31: 30 hours after it closed) records it, and it is never asked again
    a.markets[0]!.outcomePrices = ["1", "0"];
    for (let k = 31; k <= 33; k++) await collect(prisma, venues, { now: at(k) });
    expect(await prisma.market.findUnique({ where: { conditionId: "0xa" }, select: { closedAt: true, resolvedAt: true, outcome: true } })).toEqual({ closedAt: null, resolvedAt: at(31), outcome: 1 });
    expect(lookupsOf("0xa")).toBe(due.length + 1);
  }, 240_000);
});
