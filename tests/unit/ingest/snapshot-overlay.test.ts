import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import type { MarketInfo, Snapshot } from "@/lib/engine/types";
import { SnapshotOverlay } from "@/lib/ingest/snapshot-overlay";

const at = (h: number) => new Date(Date.UTC(2026, 9, 1, h));
const snap = (conditionId: string, h: number, mid: string): Snapshot => ({
  observedAt: at(h),
  conditionId,
  legKey: null,
  label: conditionId,
  bestBid: new Decimal(mid).minus(0.01),
  bestAsk: new Decimal(mid).plus(0.01),
  mid: new Decimal(mid),
  depthUsd: new Decimal(1000),
  settlementDate: null,
  resolved: false,
  outcome: null,
});
const market = (conditionId: string): MarketInfo => ({
  conditionId,
  label: conditionId,
  legKey: null,
  eventKey: null,
  theme: "macro",
  settlementDate: null,
  listedAt: at(0),
});
const mids = (xs: Snapshot[]) => Object.fromEntries(xs.map((s) => [s.conditionId, s.mid.toString()]));

describe("ingested snapshots over the feed", () => {
  it("passes the feed through when nothing was ingested", () => {
    const feed = [snap("a", 1, "0.4")];
    expect(new SnapshotOverlay([]).apply(at(1), feed, [market("a")])).toBe(feed);
  });

  it("prefers the ingested snapshot at the same time, the newer one otherwise, and never one from the future", () => {
    const overlay = new SnapshotOverlay([snap("a", 1, "0.45"), snap("b", 1, "0.7"), snap("a", 3, "0.9")]);
    expect(mids(overlay.apply(at(1), [snap("a", 1, "0.4"), snap("b", 2, "0.6")], [market("a"), market("b")]))).toEqual({
      a: "0.45",
      b: "0.6",
    });
    // hour 2: the feed is newer for a; the ingested a at hour 3 is not yet visible
    expect(mids(overlay.apply(at(2), [snap("a", 2, "0.41"), snap("b", 2, "0.6")], [market("a"), market("b")]))).toEqual(
      { a: "0.41", b: "0.6" },
    );
    expect(mids(overlay.apply(at(3), [snap("a", 2, "0.41"), snap("b", 2, "0.6")], [market("a"), market("b")]))).toEqual(
      { a: "0.9", b: "0.6" },
    );
  });

  it("adds an ingested snapshot for a listed market the feed does not carry, but not for an unlisted one", () => {
    const overlay = new SnapshotOverlay([snap("c", 1, "0.3"), snap("d", 1, "0.2")]);
    expect(mids(overlay.apply(at(1), [snap("a", 1, "0.4")], [market("a"), market("c")]))).toEqual({
      a: "0.4",
      c: "0.3",
    });
  });
});
