import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { storeHistoryPrices } from "@/lib/ingest/history-store";
import { HeldHistory } from "@/lib/ingest/history-held";
import { loadOverlay } from "@/lib/ingest/snapshot-overlay";
import { ingestFile } from "@/lib/ingest/ingest-file";
import type { HistoryPoint } from "@/lib/venues/price-history";
import { ownMigratedDatabase, type OwnDatabase } from "../support/pg";

// Rule (back-calculation): the venues' hourly history is stored one row per market per day; an
// hour that has a snapshot row is the snapshot's, a price held is kept while the venue serves the
// same one and replaced when the venue corrected it, and the engine sees the same prices as when
// each hour was a snapshot row of its own.

const HOUR = 3_600_000;
const START = new Date("2026-10-01T20:00:00Z");
const at = (h: number) => new Date(START.getTime() + h * HOUR);
const point = (h: number, p: Decimal.Value, spread: Decimal.Value = 0): HistoryPoint => {
  const bid = new Decimal(p).minus(spread);
  const ask = new Decimal(p).plus(spread);
  return { t: at(h), bestBid: bid, bestAsk: ask, mid: bid.plus(ask).dividedBy(2) };
};
const price = (h: number) => new Decimal(0.3).plus(new Decimal(h).dividedBy(1000));
const universe = [
  { conditionId: "0xh", label: "H", legKey: null, eventKey: null, theme: "", settlementDate: null, listedAt: START },
];
let db: OwnDatabase | undefined;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await ownMigratedDatabase("pmb_history_store");
  prisma = db.prisma;
  await prisma.market.create({
    data: { conditionId: "0xh", venue: "polymarket", label: "H", selectors: ["polymarket:tag:h"], listedAt: START },
  });
  await prisma.marketSnapshot.create({
    data: {
      conditionId: "0xh",
      observedAt: at(5),
      bestBid: "0.6",
      bestAsk: "0.62",
      mid: "0.61",
      depthUsd: "150",
      ingested: true,
    },
  });
}, 120_000);

afterAll(() => db?.drop());

describe("history prices: one row per market per day", () => {
  it("stores 30 hours over three days in three rows, leaving out the hour a snapshot holds", async () => {
    const stored = await prisma.$transaction((tx) =>
      storeHistoryPrices(tx, new Map([["0xh", Array.from({ length: 30 }, (_, h) => point(h, price(h), "0.005"))]])),
    );
    expect(stored).toEqual({ added: 29, replaced: 0, firstReplaced: null });
    const rows = await prisma.marketHistoryPrices.findMany({ where: { conditionId: "0xh" }, orderBy: { day: "asc" } });
    expect(rows.map((r) => [r.day.toISOString(), r.hours.length])).toEqual([
      ["2026-10-01T00:00:00.000Z", 4],
      ["2026-10-02T00:00:00.000Z", 23],
      ["2026-10-03T00:00:00.000Z", 2],
    ]);
    expect(rows[1]!.hours.includes(1)).toBe(false);
    // decimals rounded as a snapshot column rounds them (12, 8)
    expect(rows[0]!.hours).toEqual([20, 21, 22, 23]);
    expect(rows[0]!.bestBid.map(String)).toEqual(["0.295", "0.296", "0.297", "0.298"]);
    expect(rows[0]!.mid.map(String)).toEqual(["0.3", "0.301", "0.302", "0.303"]);
  });

  it("the engine sees every hour's price: the history's, and the snapshot where one is stored", async () => {
    const overlay = await loadOverlay(prisma, at(0), at(29));
    const seen = new Map<number, string>();
    for (let h = 0; h < 30; h++) {
      const [s] = overlay.apply(at(h), [], universe);
      seen.set(h, `${s!.mid.toString()} ${s!.source ?? "book"} ${s!.observedAt.toISOString() === at(h).toISOString()}`);
    }
    expect(seen.get(0)).toBe("0.3 history true");
    expect(seen.get(5)).toBe("0.61 book true");
    expect(seen.get(29)).toBe("0.329 history true");
  });

  it("storing the history again keeps the prices the venue still serves, replaces the ones it corrected and adds the new hours", async () => {
    // the venue serves hours 0-27 as before, corrected 28 and 29, and has two new hours
    const again = Array.from({ length: 32 }, (_, h) => (h < 28 ? point(h, price(h), "0.005") : point(h, 0.9)));
    const stored = await prisma.$transaction((tx) => storeHistoryPrices(tx, new Map([["0xh", again]])));
    expect(stored).toEqual({ added: 2, replaced: 2, firstReplaced: at(28) });
    const overlay = await loadOverlay(prisma, at(0), at(31));
    const mids = [0, 5, 27, 28, 29, 30, 31].map((h) => overlay.apply(at(h), [], universe)[0]!.mid.toString());
    expect(mids).toEqual(["0.3", "0.61", "0.327", "0.9", "0.9", "0.9", "0.9"]);
    // the same history once more changes nothing
    expect(await prisma.$transaction((tx) => storeHistoryPrices(tx, new Map([["0xh", again]])))).toEqual({
      added: 0,
      replaced: 0,
      firstReplaced: null,
    });
    // the hour a snapshot holds stays the snapshot's, whatever the history says
    expect(await prisma.$transaction((tx) => storeHistoryPrices(tx, new Map([["0xh", [point(5, 0.1)]]])))).toEqual({
      added: 0,
      replaced: 0,
      firstReplaced: null,
    });
  });

  it("prices held in memory for a computation are the stored ones: the engine sees the same snapshots as when they are read back", async () => {
    // hours 20 to 33: 20 to 31 held already (replaced: the venue serves other prices now), 32 and 33 new; hours 0 to 19 only held
    const held = new HeldHistory(at(0), at(33));
    const stored = await prisma.$transaction((tx) =>
      storeHistoryPrices(
        tx,
        new Map([["0xh", Array.from({ length: 14 }, (_, i) => point(20 + i, 0.7, "0.01"))]]),
        held,
      ),
    );
    expect(stored).toEqual({ added: 2, replaced: 12, firstReplaced: at(20) });
    const markets = new Map([["0xh", { legKey: null, label: "H", settlementDate: null }]]);
    const readBack = await loadOverlay(prisma, at(0), at(33));
    const fromMemory = await loadOverlay(prisma, at(0), at(33), undefined, { history: held, markets });
    const seen = (o: typeof readBack) =>
      Array.from({ length: 34 }, (_, h) => {
        const [s] = o.apply(at(h), [], universe);
        return `${h} ${s!.bestBid.toString()} ${s!.bestAsk.toString()} ${s!.mid.toString()} ${s!.source ?? "book"} ${s!.observedAt.toISOString()} ${s!.label}`;
      });
    // an overlay is replayed once, hour after hour
    const memorySeen = seen(fromMemory);
    expect(memorySeen).toEqual(seen(readBack));
    expect(memorySeen[5]).toContain(" 0.61 book ");
    expect(memorySeen[0]).toContain(" 0.295 0.305 0.3 history ");
    expect(memorySeen[33]).toContain(" 0.69 0.71 0.7 history ");
    // read back, a held market's prices come from memory only: nothing of it is read twice
    expect(fromMemory.rows.filter((r) => r.source === "history").length).toBe(
      readBack.rows.filter((r) => r.source === "history").length,
    );
  });

  it("a chunk's overlay continued from the one before it sees what an overlay loaded alone sees, each row read once", async () => {
    const first = await loadOverlay(prisma, at(0), at(9));
    for (let h = 0; h <= 9; h++) first.apply(at(h), [], universe);
    const continued = await loadOverlay(prisma, at(10), at(19), first);
    const alone = await loadOverlay(prisma, at(10), at(19));
    const seen = (o: typeof alone) =>
      Array.from({ length: 10 }, (_, i) =>
        o.apply(at(10 + i), [], universe).map((s) => `${s.mid.toString()} ${s.observedAt.toISOString()}`),
      );
    expect(seen(continued)).toEqual(seen(alone));
    expect(continued.rows.map((r) => r.observedAt.getTime())).toEqual(alone.rows.map((r) => r.observedAt.getTime()));
    // an overlay that does not end before the next chunk's first hour cannot be continued
    await expect(loadOverlay(prisma, at(5), at(19), first)).rejects.toThrow(/does not cover/);
  });

  it("an ingested file corrects a history hour (revision 1, still history) and cannot go back before the stored history", async () => {
    const fix = JSON.stringify({
      observedAt: at(10).toISOString(),
      conditionId: "0xh",
      label: "H",
      bestBid: "0.5",
      bestAsk: "0.5",
      mid: "0.5",
      depthUsd: "0",
    });
    const r = await ingestFile(prisma, "fix.jsonl", `${fix}\n`, { now: at(40) });
    expect(r).toMatchObject({ inserted: 0, revised: 1 });
    const row = await prisma.marketSnapshot.findUniqueOrThrow({
      where: { conditionId_observedAt: { conditionId: "0xh", observedAt: at(10) } },
    });
    expect([row.mid.toString(), row.revision, row.source]).toEqual(["0.5", 1, "history"]);
    const overlay = await loadOverlay(prisma, at(10), at(10));
    expect(overlay.apply(at(10), [], universe)[0]!.mid.toString()).toBe("0.5");
    const gap = JSON.stringify({
      observedAt: new Date(at(10).getTime() + 60_000).toISOString(),
      conditionId: "0xh",
      label: "H",
      bestBid: "0.5",
      bestAsk: "0.5",
      mid: "0.5",
      depthUsd: "0",
    });
    await expect(ingestFile(prisma, "gap.jsonl", `${gap}\n`, { now: at(40) })).rejects.toThrow(/time goes backwards/);
  });
});
