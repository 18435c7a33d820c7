import { describe, expect, test } from "vitest";
import { canonicalJson } from "@/lib/engine/canonical-json";
import { sha256Hex } from "@/lib/engine/sha256";
import { computeCounterfactual, fingerprintOf, inceptionConfigOf } from "@/lib/engine/volatility/counterfactual";
import type { LegQuote } from "@/lib/engine/volatility/legs";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState } from "@/lib/engine/volatility/types";
import { GATES, T0, at, partition, volDef } from "./vol-fixtures";

describe("counterfactual against the frozen inception configuration", () => {
  test("equals the live value while nothing has changed since inception", () => {
    const def = volDef();
    let state: VolState | null = null;
    for (let h = 0; h < 24; h++) {
      const r = stepVolatility(def, state, at(h), partition(at(h), [0.4 + h * 0.002, 0.305, 0.2, 0.105 - h * 0.002]));
      state = r.state;
      const tick = r.tick;
      if (tick === null) throw new Error("expected a tick");
      expect(tick.counterfactual.headlinePts).toBe(tick.headlinePts);
      expect(tick.counterfactual.rPts).toBe(tick.fbvRPts);
      for (const [k, v] of Object.entries(tick.counterfactual.tenors)) {
        expect(v).toEqual({ pts: tick.tenors[k]?.pts, share: tick.tenors[k]?.share });
      }
    }
  });

  test("differs once the definition changes after inception (headline tenor, legs)", () => {
    const def = volDef();
    const r0 = stepVolatility(def, null, at(0), partition(at(0)));
    const r1 = stepVolatility({ ...def, headlineTenorDays: 7 }, r0.state, at(1), partition(at(1)));
    expect(r1.tick?.headlinePts).toBe(r1.tick?.tenors["7"]?.pts);
    expect(r1.tick?.counterfactual.headlinePts).toBe(r1.tick?.tenors["30"]?.pts);
    expect(r1.tick?.counterfactual.headlinePts).not.toBe(r1.tick?.headlinePts);
    const r2 = stepVolatility({ ...def, legs: ["a", "b", "c"] }, r1.state, at(2), partition(at(2)));
    expect(r2.tick?.counterfactual.rPts).not.toBe(r2.tick?.fbvRPts);
  });

  test("is identified by the sha256 of the canonical inception configuration", () => {
    const def = volDef();
    const tick = stepVolatility(def, null, T0, partition(T0)).tick;
    const config = inceptionConfigOf(def, T0);
    expect(tick?.counterfactual.anchorFingerprint).toBe(sha256Hex(canonicalJson(config as never)));
    expect(tick?.counterfactual.anchorFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(tick?.counterfactual.anchorAt).toBe("2025-01-01T00:00:00.000000Z");
    expect(tick?.counterfactual.clockVersion).toBe("calendar.v1");
    expect(fingerprintOf(inceptionConfigOf(volDef({ gates: { ...GATES, depthFloorUsd: 300 } }), T0))).not.toBe(
      fingerprintOf(config),
    );
  });

  test("the fingerprint survives a state round trip and later definition edits", () => {
    const def = volDef();
    const r0 = stepVolatility(def, null, T0, partition(T0));
    const copy = JSON.parse(JSON.stringify(r0.state)) as VolState;
    const r1 = stepVolatility({ ...def, gates: { ...GATES, depthFloorUsd: 1 } }, copy, at(1), partition(at(1)));
    expect(r1.tick?.counterfactual.anchorFingerprint).toBe(r0.tick?.counterfactual.anchorFingerprint);
  });

  test("the quotes of inception legs no longer in force are kept with the inputs, and with the leg panel they recompute the counterfactual", () => {
    const def = volDef();
    const r0 = stepVolatility(def, null, at(0), partition(at(0)));
    expect(r0.tick?.inputs.counterfactualLegs).toEqual([]);
    // leg d leaves; its market is still quoted at t
    const r1 = stepVolatility({ ...def, legs: ["a", "b", "c"] }, r0.state, at(1), partition(at(1)));
    const inputs = r1.tick!.inputs;
    expect(inputs.legs.map((l) => l.conditionId)).toEqual(["a", "b", "c"]);
    expect(inputs.counterfactualLegs).toEqual([
      expect.objectContaining({
        conditionId: "d",
        legKey: "d",
        mid: 0.1,
        observedAt: at(1).toISOString(),
        resolved: false,
      }),
    ]);
    // the stored inputs alone give back the published counterfactual
    const config = r0.state.inception.config;
    const stored = [...inputs.legs, ...inputs.counterfactualLegs!].map((l): LegQuote => ({
      ...l,
      gridOrder: 0,
      observedAt: l.observedAt === null ? null : new Date(l.observedAt),
      fromHistory: l.source === "history",
      settlement: l.settlementAt === null ? null : new Date(l.settlementAt),
      days: l.daysToSettlement,
      outcome: null,
    }));
    expect(computeCounterfactual(config, r0.state.inception.fingerprint, stored)).toEqual(r1.tick!.counterfactual);
    expect(r1.tick!.counterfactual.rPts).not.toBe(r1.tick!.fbvRPts);
  });
});
