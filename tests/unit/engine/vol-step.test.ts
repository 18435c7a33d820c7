import { describe, expect, test } from "vitest";
import { formatMicros } from "@/lib/engine/time-format";
import { toHistoryPoint, toSeriesDefinition } from "@/lib/engine/volatility/history-point";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState, VolTick } from "@/lib/engine/volatility/types";
import { BASE_MIDS, T0, at, partition, volDef } from "./vol-fixtures";

const TICK_FIELDS = [
  "seriesId",
  "computedAt",
  "headlinePts",
  "headlineTenorDays",
  "tenors",
  "bandLoPts",
  "bandHiPts",
  "attrDeltaHeadlinePts",
  "attribution",
  "budgetW",
  "wTilde",
  "effectiveN",
  "sumRaw",
  "fbvRPts",
  "fbvRLabel",
  "status",
  "publicationState",
  "revision",
  "gateFlags",
  "components",
  "counterfactual",
  "labels",
  "clockVersion",
  "devigVersion",
  "methodologyVersion",
  "definitionLine",
  "targetType",
  "units",
  "compositionVersion",
  // engine-only: the bundle's leg panel and clock, never an API field
  "inputs",
].sort();
const HISTORY_FIELDS = [
  "t",
  "headlinePts",
  "tenors",
  "tier",
  "bandLoPts",
  "bandHiPts",
  "attrDeltaHeadlinePts",
  "attrDeltaFrom",
  "attrDeltaFromPublished",
  "clockSpeed",
  "cfHeadlinePts",
  "anchorFingerprint",
  "clockHomogeneityDisclosure",
  "clockVersion",
  "compositionVersion",
  "devigVersion",
  "methodologyVersion",
  "effectiveN",
  "fbvRLabel",
  "fbvRPts",
  "wTilde",
  "gateNames",
  "publicationState",
  "revision",
  "status",
  "units",
].sort();
const COMPONENT_FIELDS = [
  "leg_key",
  "label",
  "grid_order",
  "condition_id",
  "books_used",
  "days_to_settlement",
  "fbv_r_pts",
  "gate_flags",
  "observed_at",
  "p",
  "passes_depth",
  "tenor_pts",
  "w",
].sort();
const ATTRIBUTION_FIELDS = [
  "deltaPts",
  "deltaPts2",
  "gapSeconds",
  "legs",
  "prevComputedAt",
  "reason",
  "status",
  "tenorDays",
  "units",
  "unitsPts",
].sort();

function run(hoursCount: number, mids: (h: number) => number[] = () => BASE_MIDS) {
  const def = volDef();
  let state: VolState | null = null;
  const ticks: VolTick[] = [];
  for (let h = 0; h < hoursCount; h++) {
    const r = stepVolatility(def, state, at(h), partition(at(h), mids(h)));
    state = r.state;
    if (r.tick !== null) ticks.push(r.tick);
  }
  return { def, state: state as VolState, ticks };
}

describe("stepVolatility", () => {
  const { ticks } = run(3, (h) => BASE_MIDS.map((m, i) => (i === 0 ? m + 0.01 * h : i === 3 ? m - 0.01 * h : m)));
  const first = ticks[0] as VolTick;
  const second = ticks[1] as VolTick;

  test("a tick has exactly the spec's fields", () => {
    expect(Object.keys(first).sort()).toEqual(TICK_FIELDS);
    expect(Object.keys(first.attribution).sort()).toEqual(ATTRIBUTION_FIELDS);
    expect(Object.keys(first.components[0] ?? {}).sort()).toEqual(COMPONENT_FIELDS);
    expect(Object.keys(first.counterfactual).sort()).toEqual([
      "anchorAt",
      "anchorFingerprint",
      "clockVersion",
      "headlinePts",
      "rPts",
      "tenors",
    ]);
    // the spec's labels (a free map) plus the numbers a value rests on: clock speeds and the delta's base
    expect(Object.keys(first.labels).sort()).toEqual([
      "attrDeltaFrom",
      "attrDeltaFromPublished",
      "clockHomogeneityDisclosure",
      "clockSpeed",
      "composition",
      "devigVersion",
      "tier",
    ]);
    expect(Object.keys(first.tenors)).toEqual(["7", "30", "90"]);
    expect(Object.keys(first.tenors["30"] ?? {}).sort()).toEqual(["pts", "share", "share_ci", "share_meta"]);
  });

  test("a history point has exactly the spec's fields", () => {
    expect(Object.keys(toHistoryPoint(second)).sort()).toEqual(HISTORY_FIELDS);
    expect(toHistoryPoint(second).cfHeadlinePts).toBe(second.counterfactual.headlinePts);
  });

  test("the series object drops engine-only fields", () => {
    expect(Object.keys(toSeriesDefinition(volDef()))).not.toContain("legs");
    expect(Object.keys(toSeriesDefinition(volDef()))).not.toContain("methodologyVersion");
    expect(Object.keys(toSeriesDefinition({ ...volDef(), partitionOrder: "ordered" }))).not.toContain("partitionOrder");
  });

  test("fbvRPts = 100 * sqrt(1 - sum p^2) of the multiplicatively de-vigged legs", () => {
    const s = BASE_MIDS.reduce((a, b) => a + b, 0);
    const p = BASE_MIDS.map((m) => m / s);
    expect(first.fbvRPts).toBeCloseTo(100 * Math.sqrt(1 - p.reduce((a, v) => a + v * v, 0)), 5);
    expect(first.sumRaw).toBeCloseTo(s, 6);
    expect(first.budgetW).toBeCloseTo(1 - p.reduce((a, v) => a + v * v, 0), 6);
    expect(first.effectiveN).toBeCloseTo(1 / p.reduce((a, v) => a + v * v, 0), 5);
    expect(first.components.reduce((a, c) => a + c.w, 0)).toBeCloseTo(1, 5);
  });

  test("headlinePts is the headline tenor's pts, tenors grow with the horizon and stay within fbvRPts", () => {
    expect(first.headlinePts).toBe(first.tenors["30"]?.pts);
    const pts = ["7", "30", "90"].map((k) => first.tenors[k]?.pts as number);
    expect(pts[0]).toBeLessThan(pts[1] as number);
    expect(pts[1]).toBeLessThan(pts[2] as number);
    expect(pts[2]).toBeLessThanOrEqual(first.fbvRPts);
  });

  test("the band contains the headline and the share interval contains the share", () => {
    expect(first.bandLoPts).toBeLessThanOrEqual(first.headlinePts);
    expect(first.bandHiPts).toBeGreaterThan(first.headlinePts);
    for (const tenor of Object.values(first.tenors)) {
      expect(tenor.share_ci).not.toBeNull();
      const [lo, hi] = tenor.share_ci as [number, number];
      expect(lo).toBeLessThanOrEqual(tenor.share);
      expect(hi).toBeGreaterThanOrEqual(tenor.share);
    }
  });

  test("per-leg tenor pts add up in squares to the tenor pts (Pythagorean)", () => {
    for (const k of ["7", "30", "90"]) {
      const sumSquares = first.components.reduce((a, c) => a + (c.tenor_pts[k] ?? 0) ** 2, 0);
      expect(sumSquares).toBeCloseTo((first.tenors[k]?.pts ?? 0) ** 2, 3);
    }
  });

  test("the first tick has no previous tick to attribute against", () => {
    expect(first.attribution).toMatchObject({
      prevComputedAt: null,
      reason: "first_tick",
      status: "unavailable",
      legs: [],
      gapSeconds: null,
    });
    expect(first.attrDeltaHeadlinePts).toBe(0);
  });

  test("later ticks attribute against the previous one, with naive-UTC timestamps", () => {
    expect(second.attribution.prevComputedAt).toBe("2025-01-01T00:00:00.000000");
    expect(second.attribution.gapSeconds).toBe(3600);
    expect(second.attribution.reason).toBeNull();
    expect(second.components[0]?.observed_at).toBe(formatMicros(at(1), false));
    expect(second.attrDeltaHeadlinePts).toBeCloseTo(second.headlinePts - first.headlinePts, 5);
  });

  test("clean inputs publish with status ok", () => {
    expect(first.status).toBe("ok");
    expect(first.publicationState).toBe("published");
    expect(first.gateFlags).toEqual([]);
    expect(first.labels.tier).toEqual({
      "7": "budget-implied",
      "30": "budget-implied",
      "90": "budget-implied",
      R: "budget-implied",
    });
    expect(first.clockVersion).toBe("calendar.v1");
    expect(first.labels.composition).toEqual({ leg_keys: ["a", "b", "c", "d"], n: 4, version: "v1" });
    expect(first.computedAt).toEqual(T0);
  });

  test("state is JSON-safe: a round trip gives the same next tick", () => {
    const { def, state } = run(2);
    const copy = JSON.parse(JSON.stringify(state)) as VolState;
    const snaps = partition(at(2), [0.4, 0.31, 0.2, 0.1]);
    expect(stepVolatility(def, copy, at(2), snaps)).toEqual(stepVolatility(def, state, at(2), snaps));
  });

  test("ticks must move forward in time", () => {
    const { def, state } = run(2);
    expect(() => stepVolatility(def, state, at(1), partition(at(1)))).toThrow(RangeError);
  });

  test("a leg dropping out starts a new composition version", () => {
    const def = volDef();
    const r0 = stepVolatility({ ...def, legs: ["a", "b", "c", "d", "e"] }, null, at(0), partition(at(0)));
    expect(r0.tick?.compositionVersion).toBe("v1");
    expect(r0.tick?.status).toBe("suspended");
    const r1 = stepVolatility(def, r0.state, at(1), partition(at(1)));
    expect(r1.tick?.compositionVersion).toBe("v1");
    const r2 = stepVolatility(def, r1.state, at(2), partition(at(2)).slice(0, 3));
    expect(r2.tick?.compositionVersion).toBe("v2");
  });
});
