import { describe, expect, test } from "vitest";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState, VolStatus } from "@/lib/engine/volatility/types";
import { BASE_MIDS, GATES, at, legSnap, partition, volDef } from "./vol-fixtures";

const overround = BASE_MIDS.map((m) => m * 1.08);

function runStatuses(pattern: ("ok" | "bad")[], retireAfter: number) {
  const def = volDef({ gates: { ...GATES, retireAfterDegradedTicks: retireAfter } });
  let state: VolState | null = null;
  const out: (VolStatus | null)[] = [];
  pattern.forEach((kind, h) => {
    const r = stepVolatility(def, state, at(h), partition(at(h), kind === "ok" ? BASE_MIDS : overround));
    state = r.state;
    out.push(r.tick?.status ?? null);
  });
  return { statuses: out, state: state as unknown as VolState };
}

describe("retirement", () => {
  test("a series retires after retireAfterDegradedTicks consecutive degraded ticks and publishes nothing after", () => {
    const { statuses, state } = runStatuses(["ok", "bad", "bad", "bad", "ok", "ok"], 3);
    expect(statuses).toEqual(["ok", "flagged", "flagged", "flagged", null, null]);
    expect(state.retiredAt).toBe(at(3).toISOString());
    expect(state.retiredReason).toBe("degraded");
  });

  test("an ok tick resets the degraded streak", () => {
    const { statuses, state } = runStatuses(["bad", "bad", "ok", "bad", "bad", "ok", "bad"], 3);
    expect(statuses).not.toContain(null);
    expect(state.retiredAt).toBeNull();
    expect(state.degradedStreak).toBe(1);
  });

  test("suspended ticks count as degraded too", () => {
    const def = volDef({ gates: { ...GATES, retireAfterDegradedTicks: 2 } });
    const thin = (h: number) => partition(at(h), BASE_MIDS, { 0: { depth: 10 }, 1: { depth: 10 } });
    const r0 = stepVolatility(def, null, at(0), thin(0));
    const r1 = stepVolatility(def, r0.state, at(1), thin(1));
    expect([r0.tick?.status, r1.tick?.status]).toEqual(["suspended", "suspended"]);
    expect(r1.state.retiredReason).toBe("degraded");
  });

  test("a partition retires when it resolves", () => {
    const def = volDef();
    const r0 = stepVolatility(def, null, at(0), partition(at(0)));
    const resolved = ["a", "b", "c", "d"].map((id, i) =>
      legSnap(id, at(1), { mid: i === 1 ? 1 : 0, spread: 0, resolved: true, outcome: i === 1 ? 1 : 0 }),
    );
    const r1 = stepVolatility(def, r0.state, at(1), resolved);
    expect(r1.tick).toBeNull();
    expect(r1.state.retiredReason).toBe("resolved");
    expect(stepVolatility(def, r1.state, at(2), partition(at(2))).tick).toBeNull();
  });
});
