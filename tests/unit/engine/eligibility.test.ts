import Decimal from "decimal.js";
import { describe, expect, test } from "vitest";
import { canEnter, daysToSettlement, entryBlock, type EntryBlock } from "@/lib/engine/eligibility";
import type { EligibilityRule, MarketInfo, Snapshot } from "@/lib/engine/types";

// The entry rule names the first condition a market fails; canEnter (the engine's test) is its null.
const t = new Date("2026-11-25T12:00:00Z");
const DAY = 86_400_000;
const rule: EligibilityRule = {
  theme: "",
  eventKeyPrefix: null,
  includePartitionLegs: false,
  selectors: ["polymarket:tag:crypto"],
  minDepthUsd: 100,
  maxSpread: 0.05,
  minDaysToSettlement: 2,
  maxDaysToSettlement: 60,
};
const market: MarketInfo = {
  conditionId: "0xa",
  label: "A",
  legKey: null,
  eventKey: "a",
  theme: "",
  settlementDate: new Date(t.getTime() + 30 * DAY),
  listedAt: t,
  selectors: ["polymarket:tag:crypto"],
};
const snapshot: Snapshot = {
  observedAt: t,
  conditionId: "0xa",
  legKey: null,
  label: "A",
  bestBid: new Decimal("0.40"),
  bestAsk: new Decimal("0.43"),
  mid: new Decimal("0.415"),
  depthUsd: new Decimal("250"),
  settlementDate: null,
  resolved: false,
  outcome: null,
};

describe("entry rule", () => {
  test.each<[string, Partial<MarketInfo>, Partial<Snapshot> | undefined, EntryBlock | null]>([
    ["a market that passes every condition may enter", {}, {}, null],
    [
      "a market outside the universe's selectors is out",
      { selectors: ["polymarket:tag:sports"] },
      {},
      "outside-universe",
    ],
    [
      "a leg of a mutually exclusive event is out unless partition legs are included",
      { legKey: "yes-a" },
      {},
      "partition-leg",
    ],
    ["a market listed after t is out", { listedAt: new Date(t.getTime() + 3_600_000) }, {}, "not-listed-yet"],
    ["a market past its settlement date is out", { settlementDate: t }, {}, "settled"],
    ["a market without a quote is out", {}, undefined, "no-quote"],
    ["a resolved market is out", {}, { resolved: true }, "resolved"],
    ["depth below minDepthUsd is out", {}, { depthUsd: new Decimal("99.99") }, "depth"],
    ["a spread wider than maxSpread is out", {}, { bestAsk: new Decimal("0.46") }, "spread"],
    [
      "fewer days to settlement than minDaysToSettlement is out",
      { settlementDate: new Date(t.getTime() + DAY) },
      {},
      "too-close-to-settlement",
    ],
    [
      "more days to settlement than maxDaysToSettlement is out",
      { settlementDate: new Date(t.getTime() + 61 * DAY) },
      {},
      "too-far-from-settlement",
    ],
    ["a quote older than the staleness limit is out", {}, { observedAt: new Date(t.getTime() - 7201_000) }, "stale"],
  ])("%s", (_name, m, s, expected) => {
    const snap = s === undefined ? undefined : { ...snapshot, ...s };
    expect(entryBlock(rule, { ...market, ...m }, snap, t, 7200)).toBe(expected);
    expect(canEnter(rule, { ...market, ...m }, snap, t, 7200)).toBe(expected === null);
  });

  test("days to settlement fall back to the snapshot's settlement date", () => {
    expect(
      daysToSettlement(
        { ...market, settlementDate: null },
        { ...snapshot, settlementDate: new Date(t.getTime() + 3 * DAY) },
        t,
      ),
    ).toBe(3);
    expect(daysToSettlement({ ...market, settlementDate: null }, snapshot, t)).toBeNull();
  });
});
