import { describe, expect, test } from "vitest";
import { evaluateGates, type GateInput } from "@/lib/engine/volatility/gates";
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
    sumRaw: 1,
    devigGap: { legKey: "a", gap: 0 },
    pythagorean: [{ tenorDays: 30, gapPts2: 0.000004 }],
    identityResidualPts2: 0.000001,
  };

  test("within tolerances the tick is ok", () => {
    expect(evaluateGates(base).status).toBe("ok");
  });

  test("a published pts^2 that departs from the sum of its legs' pts^2 beyond pythagoreanTolerancePts2 flags", () => {
    const r = evaluateGates({ ...base, pythagorean: [{ tenorDays: 30, gapPts2: 0.05 }] });
    expect(r.status).toBe("flagged");
    expect(r.flags.map((f) => f.gate)).toEqual(["pythagorean"]);
  });

  test("an attribution residual beyond identityTolerance flags", () => {
    const r = evaluateGates({ ...base, identityResidualPts2: 0.01 });
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
      base.legs[1] as GateInput["legs"][number],
    ];
    expect(evaluateGates({ ...base, legs }).status).toBe("ok");
  });

  test("the headline engine never trips its own consistency gates on clean data", () => {
    const { tick } = statusOf(partition(t));
    expect(tick.gateFlags.filter((f) => f.gate === "pythagorean" || f.gate === "identity")).toEqual([]);
  });
});
