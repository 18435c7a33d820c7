import { describe, expect, test } from "vitest";
import { decimalSum, evaluateGates, type GateInput } from "@/lib/engine/volatility/gates";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { Snapshot } from "@/lib/engine/types";
import type { VolGates, VolStatus } from "@/lib/engine/volatility/types";
import { BASE_MIDS, GATES, T0, at, partition, volDef } from "./vol-fixtures";

const t = at(10);
const scaled = (total: number) => BASE_MIDS.map((m) => (m / 1.01) * total);

function statusOf(snaps: Snapshot[], gates: Partial<VolGates> = {}, legs?: string[]) {
  const def = volDef({ gates: { ...GATES, ...gates }, ...(legs ? { legs } : {}) });
  const tick = stepVolatility(def, null, t, snaps).tick;
  if (tick === null) throw new Error("expected a tick");
  return { status: tick.status, gates: tick.gateFlags.map((f) => f.gate), tick };
}

interface GateCase {
  gate: string;
  snaps: Snapshot[];
  gates?: Partial<VolGates>;
  legs?: string[];
  status: VolStatus;
}

describe("publication gates", () => {
  test("the clean partition is ok", () => {
    expect(statusOf(partition(t))).toMatchObject({ status: "ok", gates: [] });
  });

  const cases: [string, GateCase][] = [
    [
      "overround above overroundFlagHi flags",
      { gate: "overround", snaps: partition(t, scaled(1.08)), status: "flagged" },
    ],
    [
      "underround below overroundFlagLo flags",
      { gate: "underround", snaps: partition(t, scaled(0.97)), gates: { arbMinDepthUsd: 1e9 }, status: "flagged" },
    ],
    [
      "quotes further apart than snapshotMaxSkewSeconds flag",
      { gate: "snapshot_skew", snaps: partition(t, BASE_MIDS, { 2: { observedAt: at(8) } }), status: "flagged" },
    ],
    [
      "a low-budget leg older than snapshotMaxAgeSeconds flags",
      { gate: "snapshot_age", snaps: partition(t, BASE_MIDS, { 3: { observedAt: at(7) } }), status: "flagged" },
    ],
    [
      "a high-budget leg older than snapshotMaxAgeSeconds suspends",
      { gate: "snapshot_age", snaps: partition(t, BASE_MIDS, { 0: { observedAt: at(7) } }), status: "suspended" },
    ],
    [
      "a low-budget leg thinner than depthFloorUsd flags",
      { gate: "depth_floor", snaps: partition(t, BASE_MIDS, { 3: { depth: 100 } }), status: "flagged" },
    ],
    [
      "a high-budget leg thinner than depthFloorUsd suspends",
      { gate: "depth_floor", snaps: partition(t, BASE_MIDS, { 0: { depth: 100 } }), status: "suspended" },
    ],
    [
      "a leg wider than spreadToMidMax flags",
      {
        gate: "spread_to_mid",
        snaps: partition(t, BASE_MIDS, { 3: { spread: 0.12 } }),
        gates: { impactBudgetPts: 100 },
        status: "flagged",
      },
    ],
    [
      "a leg whose bid or ask moves the headline beyond impactBudgetPts suspends",
      {
        gate: "impact",
        snaps: partition(t, BASE_MIDS, { 0: { spread: 0.2 } }),
        gates: { impactBudgetPts: 0.3 },
        status: "suspended",
      },
    ],
    [
      "an executable arbitrage beyond the tolerance flags",
      {
        gate: "arbitrage",
        snaps: partition(t, scaled(0.97), {
          0: { spread: 0.004 },
          1: { spread: 0.004 },
          2: { spread: 0.004 },
          3: { spread: 0.004 },
        }),
        gates: { overroundFlagLo: 0.9 },
        status: "flagged",
      },
    ],
    [
      "de-vig methods disagreeing beyond devigTolerance flag",
      {
        gate: "devig",
        snaps: partition(t, [0.6, 0.4, 0.2, 0.1]),
        gates: { overroundFlagHi: 2, arbMinDepthUsd: 1e9 },
        status: "flagged",
      },
    ],
    [
      "a leg that has never been quoted suspends",
      { gate: "leg_missing", snaps: partition(t), legs: ["a", "b", "c", "d", "e"], status: "suspended" },
    ],
  ];

  test.each(cases)("%s", (_name, c) => {
    const result = statusOf(c.snaps, c.gates, c.legs);
    expect(result.status).toBe(c.status);
    expect(result.gates).toContain(c.gate);
    expect(result.tick.publicationState).toBe(c.status === "suspended" ? "withheld" : "published");
    const flag = result.tick.gateFlags.find((f) => f.gate === c.gate);
    expect(flag?.publicDetail.length).toBeGreaterThan(20);
    if (c.status === "suspended") expect(result.gates).toContain("failing_budget_share");
  });

  test("each failing leg is named in its component's gate_flags", () => {
    const { tick } = statusOf(partition(t, BASE_MIDS, { 3: { depth: 100 } }));
    expect(tick.components.find((c) => c.leg_key === "d")).toMatchObject({
      gate_flags: ["depth_floor"],
      passes_depth: false,
    });
    expect(tick.components.find((c) => c.leg_key === "a")).toMatchObject({ gate_flags: [], passes_depth: true });
  });

  test.each([
    [0.5, "flagged"],
    [0.3, "flagged"],
    [0.1, "suspended"],
  ] as const)(
    "suspendFailingBudgetShare %d: a thin leg carrying ~13%% of the budget leaves the tick %s",
    (share, status) => {
      expect(
        statusOf(partition(t, BASE_MIDS, { 3: { depth: 100 } }), { suspendFailingBudgetShare: share }).status,
      ).toBe(status);
    },
  );
});

describe("consistency gates (evaluated on the published numbers)", () => {
  const base: GateInput = {
    gates: GATES,
    t: T0,
    legs: ["a", "b"].map((k) => ({
      legKey: k,
      label: k,
      bid: 0.49,
      ask: 0.51,
      mid: 0.5,
      depthUsd: 5_000,
      observedAt: T0,
      resolved: false,
      budgetShare: 0.5,
      impactPts: 0.1,
    })),
    devigGap: { legKey: "a", gap: 0 },
    pythagorean: [{ tenorDays: 30, pts: 10, legPts: [7.071068, 7.071068] }],
    identity: { deltaPts2: 0.5, parts: [0.2, 0.05, 0.2, 0.049999] },
  };

  test("within tolerances the tick is ok", () => {
    expect(evaluateGates(base).status).toBe("ok");
  });

  test("a published pts^2 that departs from the sum of its legs' pts^2 beyond pythagoreanTolerancePts2 flags", () => {
    const r = evaluateGates({ ...base, pythagorean: [{ tenorDays: 30, pts: 10, legPts: [7.07, 7.07] }] });
    expect(r.status).toBe("flagged");
    expect(r.flags.map((f) => f.gate)).toEqual(["pythagorean"]);
  });

  test("an attribution residual beyond identityTolerance flags", () => {
    const r = evaluateGates({ ...base, identity: { deltaPts2: 0.5, parts: [0.2, 0.05, 0.2, 0.04] } });
    expect(r.status).toBe("flagged");
    expect(r.flags.map((f) => f.gate)).toEqual(["identity"]);
  });

  test("a resolved leg is exempt from quote gates", () => {
    const legs = [
      {
        ...(base.legs[0] as GateInput["legs"][number]),
        resolved: true,
        depthUsd: 0,
        bid: 0,
        ask: 0,
        mid: 0,
        observedAt: new Date(0),
      },
      { ...(base.legs[1] as GateInput["legs"][number]), bid: 0.99, ask: 1, mid: 0.995 },
    ];
    expect(evaluateGates({ ...base, legs }).status).toBe("ok");
  });

  test("the headline engine never trips its own consistency gates on clean data", () => {
    const { tick } = statusOf(partition(t));
    expect(tick.gateFlags.filter((f) => f.gate === "pythagorean" || f.gate === "identity")).toEqual([]);
  });
});

// Every gate at its exact boundary, decided in decimal: a value equal to its limit never crosses a
// "more than" / "below" rule, and the smallest step past it does. Binary floating point gets
// several of these wrong (0.185 + 0.351 + 0.340 + 0.134 = 1.0100000000000002).
describe("each gate at its exact boundary (exact decimal)", () => {
  const leg = (k: string, q: Partial<GateInput["legs"][number]>): GateInput["legs"][number] => ({
    legKey: k,
    label: k,
    bid: 0.24,
    ask: 0.26,
    mid: 0.25,
    depthUsd: 5_000,
    observedAt: T0,
    resolved: false,
    budgetShare: 0.25,
    impactPts: 0.1,
    ...q,
  });
  const quad = (qs: Partial<GateInput["legs"][number]>[]) => ["a", "b", "c", "d"].map((k, i) => leg(k, qs[i] ?? {}));
  const clean: GateInput = {
    gates: {
      ...GATES,
      overroundFlagLo: 0.9,
      overroundFlagHi: 1.1,
      arbToleranceMin: 0.005,
      arbToleranceTicks: 1,
      devigTolerance: 0.02,
    },
    t: T0,
    legs: quad([]),
    devigGap: null,
    pythagorean: [],
    identity: null,
  };
  const gatesOf = (input: Partial<GateInput>) => evaluateGates({ ...clean, ...input }).flags.map((f) => f.gate);
  const bids = (b: number[]) =>
    quad(b.map((bid, i) => ({ bid, ask: [0.2, 0.36, 0.35, 0.15][i]!, mid: [0.19, 0.355, 0.345, 0.14][i]! })));
  const asks = (a: number[]) => quad(a.map((ask, i) => ({ ask, bid: a[i]! - 0.02, mid: a[i]! - 0.01 })));

  test.each([
    ["bids sum to exactly 1.010 (tolerance 0.01): not flagged", bids([0.185, 0.351, 0.34, 0.134]), false],
    ["bids sum to 1.011: flagged", bids([0.185, 0.351, 0.341, 0.134]), true],
    ["asks sum to exactly 0.990 (tolerance 0.01): not flagged", asks([0.3, 0.29, 0.2, 0.2]), false],
    ["asks sum to 0.989: flagged", asks([0.3, 0.29, 0.2, 0.199]), true],
  ])("arbitrage: %s", (_name, legs, flagged) => {
    expect(gatesOf({ legs }).includes("arbitrage")).toBe(flagged);
  });

  test("the PMV-FED 2026-08-14T23:00 bids add to 1.0100000000000002 in binary floating point, 1.010 in decimal", () => {
    expect(0.185 + 0.351 + 0.34 + 0.134).toBeGreaterThan(1.01);
    expect(decimalSum([0.185, 0.351, 0.34, 0.134]).toString()).toBe("1.01");
  });

  test.each([
    ["overround", [0.3, 0.3, 0.3, 0.2], 1.1, false],
    ["overround", [0.3, 0.3, 0.3, 0.2000001], 1.1, true],
    ["underround", [0.3, 0.2, 0.2, 0.2], 0.9, false],
    ["underround", [0.3, 0.2, 0.2, 0.1999999], 0.9, true],
  ] as const)("%s: mids %j against the limit %d", (gate, mids, _limit, flagged) => {
    const legs = quad(mids.map((mid) => ({ mid, bid: mid - 0.001, ask: mid + 0.001 })));
    expect(gatesOf({ legs, gates: { ...clean.gates, arbMinDepthUsd: 1e9 } }).includes(gate)).toBe(flagged);
  });

  test.each([
    ["depth equal to the floor passes", { depthUsd: 250 }, "depth_floor", false],
    ["a cent below the floor fails", { depthUsd: 249.99 }, "depth_floor", true],
    ["spread exactly spreadToMidMax times the mid passes", { bid: 0.1, ask: 0.3, mid: 0.2 }, "spread_to_mid", false],
    ["spread a hair wider fails", { bid: 0.1, ask: 0.3000001, mid: 0.2 }, "spread_to_mid", true],
    ["impact equal to the budget passes", { impactPts: 1.5 }, "impact", false],
    ["impact above the budget fails", { impactPts: 1.5000001 }, "impact", true],
    [
      "a quote exactly snapshotMaxAgeSeconds old passes",
      { observedAt: new Date(T0.getTime() - 7_200_000) },
      "snapshot_age",
      false,
    ],
    ["a millisecond older fails", { observedAt: new Date(T0.getTime() - 7_200_001) }, "snapshot_age", true],
  ] as const)("%s", (_name, q, gate, flagged) => {
    const gates = { ...clean.gates, spreadToMidMax: 1, snapshotMaxSkewSeconds: 1e9, arbMinDepthUsd: 1e9 };
    expect(gatesOf({ gates, legs: quad([q]) }).includes(gate)).toBe(flagged);
  });

  test.each([
    [3_600_000, false],
    [3_600_001, true],
  ])("snapshot_skew: quotes %d ms apart against a 3600 s limit", (ms, flagged) => {
    const legs = quad([{ observedAt: new Date(T0.getTime() - ms) }]);
    expect(gatesOf({ legs }).includes("snapshot_skew")).toBe(flagged);
  });

  test.each([
    [0.02, false],
    [0.0200001, true],
  ])("devig: a gap of %d against devigTolerance 0.02", (gap, flagged) => {
    expect(gatesOf({ devigGap: { legKey: "a", gap } }).includes("devig")).toBe(flagged);
  });

  test.each([
    // 10^2 - (7^2 + 7.1^2) = 0.59; 10.1^2 - (7^2 + 7.07^2 + 0.1^2) = 0.0051 ... exact sums
    [{ pts: 0.3, legPts: [0.2, 0.2] }, 0.01, false], // 0.09 - 0.08 = 0.01 exactly (binary: 0.009999999999999995)
    [{ pts: 0.3, legPts: [0.2, 0.199] }, 0.01, true], // 0.09 - 0.079601 = 0.010399
  ])("pythagorean: %j against tolerance %d", (p, tolerance, flagged) => {
    const gates = { ...clean.gates, pythagoreanTolerancePts2: tolerance };
    expect(gatesOf({ gates, pythagorean: [{ tenorDays: 30, ...p }] }).includes("pythagorean")).toBe(flagged);
  });

  test.each([
    [{ deltaPts2: 0.3, parts: [0.1, 0.1, 0.0999] }, 0.0001, false], // residual exactly 0.0001
    [{ deltaPts2: 0.3, parts: [0.1, 0.1, 0.09989] }, 0.0001, true],
  ])("identity: %j against tolerance %d", (identity, tolerance, flagged) => {
    const gates = { ...clean.gates, identityTolerance: tolerance };
    expect(gatesOf({ gates, identity }).includes("identity")).toBe(flagged);
  });

  test.each([
    // failing legs carry 0.1 + 0.15 = 0.25 exactly: flagged, not suspended; a hair more suspends
    [[0.1, 0.15], "flagged"],
    [[0.1, 0.1500001], "suspended"],
  ] as const)("failing_budget_share: failing legs carrying %j against 0.25", (shares, status) => {
    const legs = quad(shares.map((budgetShare) => ({ budgetShare, depthUsd: 1 })));
    const gates = { ...clean.gates, suspendFailingBudgetShare: 0.25, arbMinDepthUsd: 1e9 };
    expect(evaluateGates({ ...clean, gates, legs }).status).toBe(status);
  });
});
