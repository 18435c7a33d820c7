import Decimal from "decimal.js";
import { describe, expect, test } from "vitest";
import { canEnter } from "@/lib/engine/eligibility";
import type { EligibilityRule, MarketInfo, Snapshot } from "@/lib/engine/types";
import { awaitsBackCalculation, basisOf } from "@/lib/ingest/engine-hour";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import { decideGates } from "@/lib/snapshots/verify-bundles";
import { BASE_MIDS, GATES, at, partition, volDef } from "./vol-fixtures";

const t = new Date("2026-10-10T10:00:00Z");
const rule: EligibilityRule = {
  theme: "",
  eventKeyPrefix: null,
  includePartitionLegs: false,
  selectors: ["polymarket:tag:crypto"],
  minDepthUsd: 100,
  maxSpread: 0.1,
  minDaysToSettlement: 0,
  maxDaysToSettlement: null,
};
const market: MarketInfo = {
  conditionId: "0xa",
  label: "a",
  legKey: null,
  eventKey: "e",
  theme: "",
  settlementDate: null,
  listedAt: new Date("2026-10-01T00:00:00Z"),
  selectors: ["polymarket:tag:crypto"],
};
const snap = (over: Partial<Snapshot>): Snapshot => ({
  observedAt: t,
  conditionId: "0xa",
  legKey: null,
  label: "a",
  bestBid: new Decimal("0.4"),
  bestAsk: new Decimal("0.4"),
  mid: new Decimal("0.4"),
  depthUsd: new Decimal(0),
  settlementDate: null,
  resolved: false,
  outcome: null,
  ...over,
});

describe("eligibility of a price from the venue's history (no book, so no depth)", () => {
  test.each([
    ["a book read thinner than the depth floor stays out", snap({}), false],
    ["a history price enters: the depth rule cannot apply to it", snap({ source: "history" }), true],
    [
      "the spread rule still applies to a history price (Kalshi candles carry bid and ask)",
      snap({ source: "history", bestBid: new Decimal("0.3"), bestAsk: new Decimal("0.45") }),
      false,
    ],
    ["so does staleness", snap({ source: "history", observedAt: new Date(t.getTime() - 3 * 3_600_000) }), false],
  ])("%s", (_name, s, expected) => {
    expect(canEnter(rule, market, s, t, 7200)).toBe(expected);
  });
});

describe("what a value rests on", () => {
  const launch = new Date("2026-10-11T00:00:00Z");
  test.each([
    ["before the launch: back-calculated", t, false, "back-calculated"],
    ["before the launch, whatever the source", t, true, "back-calculated"],
    ["from the launch on, book reads: live", launch, false, "live"],
    ["from the launch on, a price from the history: history-filled", launch, true, "history-filled"],
  ] as const)("%s", (_name, at, usedHistory, expected) => {
    expect(basisOf(launch, at, usedHistory)).toBe(expected);
  });
  test("an entry without a launch is live", () => expect(basisOf(undefined, t, false)).toBe("live"));

  test.each([
    [
      "a base date before the launch, not yet run: waits",
      { inceptionAt: t, launchAt: launch, backCalculatedAt: null },
      true,
    ],
    ["once run: computed", { inceptionAt: t, launchAt: launch, backCalculatedAt: launch }, false],
    ["no back history (launch at inception)", { inceptionAt: launch, launchAt: launch, backCalculatedAt: null }, false],
    ["no launch recorded (the demo, older rows)", { inceptionAt: t, launchAt: null, backCalculatedAt: null }, false],
  ])("%s", (_name, row, expected) => expect(awaitsBackCalculation(row)).toBe(expected));
});

describe("volatility gates on prices from the venue's history (no book, so no depth floor)", () => {
  const at10 = at(10);
  const fromHistory = (snaps: Snapshot[]) =>
    snaps.map((s) => ({ ...s, depthUsd: new Decimal(0), source: "history" as const }));
  const tickOf = (snaps: Snapshot[]) => {
    const tick = stepVolatility(volDef({ gates: GATES }), null, at10, snaps).tick;
    if (tick === null) throw new Error("expected a tick");
    return tick;
  };

  test("book reads at depth 0 fail the depth floor and suspend", () => {
    const tick = tickOf(partition(at10).map((s) => ({ ...s, depthUsd: new Decimal(0) })));
    expect(tick.gateFlags.map((f) => f.gate)).toContain("depth_floor");
    expect(tick.status).toBe("suspended");
  });

  test("history prices at depth 0 are not flagged on depth, and their components pass it", () => {
    const tick = tickOf(fromHistory(partition(at10)));
    expect(tick.gateFlags.map((f) => f.gate)).not.toContain("depth_floor");
    expect(tick.status).toBe("ok");
    expect(tick.components.every((c) => c.passes_depth)).toBe(true);
    expect(tick.inputs.legs.every((l) => l.source === "history")).toBe(true);
  });

  test("the other gates still apply to history prices: a stale one fails its age", () => {
    const tick = tickOf(fromHistory(partition(at10, BASE_MIDS, { 3: { observedAt: at(7) } })));
    expect(tick.gateFlags.map((f) => f.gate)).toContain("snapshot_age");
    expect(tick.gateFlags.map((f) => f.gate)).not.toContain("depth_floor");
    expect(tick.status).not.toBe("ok");
  });

  test("the bundle verifier reads the gates the same way", () => {
    const leg = (fromHistory: boolean) => ({
      conditionId: "a",
      legKey: "a",
      label: "a",
      gridOrder: 0,
      bid: 0.5,
      ask: 0.5,
      mid: 0.5,
      depthUsd: 0,
      cells: { bid: "0.5", ask: "0.5", mid: "0.5", depthUsd: "0.00" },
      fromHistory,
      observedAt: at10,
      settlementAt: null,
      resolved: false,
      p: 0.5,
      tenorPts: null,
    });
    const facts = (fromHistory: boolean) => ({
      gates: GATES,
      t: at10,
      legs: [leg(fromHistory), { ...leg(fromHistory), conditionId: "b", legKey: "b", gridOrder: 1 }],
      impactPts: [0, 0],
      budgetShare: [0.5, 0.5],
      devigGap: null,
      pythagorean: [],
      identity: null,
    });
    expect(decideGates(facts(false)).names).toContain("depth_floor");
    expect(decideGates(facts(true)).names).not.toContain("depth_floor");
  });
});
