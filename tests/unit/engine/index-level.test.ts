import { describe, expect, test } from "vitest";
import { indexStatus, stepIndex } from "@/lib/engine/index-level";
import type { IndexState } from "@/lib/engine/types";
import { T0, hours, indexDef, market, resolvedSnap, snap } from "./index-fixtures";

const def = indexDef();

function incept(prices: Record<string, string>) {
  const universe = Object.keys(prices).map((id) => market(id));
  const snaps = Object.entries(prices).map(([id, p]) => snap(id, p, T0));
  return { universe, ...stepIndex(def, null, T0, snaps, universe) };
}

describe("stepIndex", () => {
  test("an index starts at 100.00000000 with composition v1 of every eligible market", () => {
    const r = incept({ a: "0.4", b: "0.6" });
    expect(r.level?.indexLevel).toBe("100.00000000");
    expect(r.composition?.version).toBe("v1");
    expect(r.composition?.members.map((m) => m.conditionId)).toEqual(["a", "b"]);
    expect(r.state.linkBasket).toBe("1");
  });

  test("the level is L_k * B_t / B_k", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    const r1 = stepIndex(
      def,
      r0.state,
      hours(1),
      [snap("a", "0.5", hours(1)), snap("b", "0.65", hours(1))],
      r0.universe,
    );
    expect(r1.level?.indexLevel).toBe("115.00000000");
    expect(r1.reconstitution).toBeNull();
  });

  test("markets of another theme, partition legs and unlisted markets never enter", () => {
    const universe = [
      market("a"),
      market("other", { theme: "sports" }),
      market("leg", { legKey: "yes" }),
      market("later", { listedAt: hours(5) }),
    ];
    const snaps = ["a", "other", "leg", "later"].map((id) => snap(id, "0.5", T0));
    const r = stepIndex(def, null, T0, snaps, universe);
    expect(r.state.members.map((m) => m.conditionId)).toEqual(["a"]);
  });

  test("a resolved constituent is marked at its settlement, then leaves at the link; the level is identical under both compositions", () => {
    const r0 = incept({ a: "0.4", b: "0.6", c: "0.5" });
    const r1 = stepIndex(
      def,
      r0.state,
      hours(1),
      [resolvedSnap("a", 1, hours(1)), snap("b", "0.6", hours(1)), snap("c", "0.5", hours(1))],
      r0.universe,
    );
    // old basket 1 + 0.6 + 0.5 = 2.1 against 1.5 at inception
    expect(r1.level?.indexLevel).toBe("140.00000000");
    const rec = r1.reconstitution;
    expect(rec).not.toBeNull();
    expect(rec?.removedMarketCount).toBe(1);
    expect(rec?.addedMarketCount).toBe(0);
    expect(rec?.fromVersion).toBe("v1");
    expect(rec?.toVersion).toBe("v2");
    expect(rec?.oldBasketValue).toBe("2.1");
    expect(rec?.newBasketValue).toBe("1.1");
    expect(rec?.marketsOut).toEqual([
      { conditionId: "a", label: "Market a", weight: "1", price: "1", reason: "resolved", outcome: 1 },
    ]);
    expect(r1.state.members.map((m) => m.conditionId)).toEqual(["b", "c"]);
    // next hour, unchanged prices: the level is still 140 under the new composition
    const r2 = stepIndex(
      def,
      r1.state,
      hours(2),
      [snap("b", "0.6", hours(2)), snap("c", "0.5", hours(2))],
      r0.universe,
    );
    expect(r2.level?.indexLevel).toBe("140.00000000");
    expect(r2.level?.compositionVersion).toBe("v2");
    expect(indexStatus(r2.state).seriesPartiallyResolved).toBe(true);
  });

  test("a newly listed eligible market enters at the next step and is counted in addedMarketCount", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    const universe = [...r0.universe, market("n", { listedAt: hours(1) })];
    const r1 = stepIndex(
      def,
      r0.state,
      hours(1),
      [snap("a", "0.4", hours(1)), snap("b", "0.6", hours(1)), snap("n", "0.3", hours(1))],
      universe,
    );
    expect(r1.reconstitution?.addedMarketCount).toBe(1);
    expect(r1.reconstitution?.marketsIn.map((m) => [m.conditionId, m.price])).toEqual([["n", "0.3"]]);
    expect(r1.composition?.members.map((m) => m.conditionId)).toEqual(["a", "b", "n"]);
    expect(r1.level?.indexLevel).toBe("100.00000000");
    expect(r1.state.linkFactor).toBe("76.923076923076923076923076923076923076923076923077");
    const r2 = stepIndex(
      def,
      r1.state,
      hours(2),
      [snap("a", "0.4", hours(2)), snap("b", "0.6", hours(2)), snap("n", "0.43", hours(2))],
      universe,
    );
    expect(r2.level?.indexLevel).toBe("110.00000000");
  });

  test("stale when a constituent's last snapshot is older than the staleness limit; dataQuality counts it", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    // b last seen at T0; at +3h it is 10,800 s old, beyond the 7,200 s limit
    const r1 = stepIndex(def, r0.state, hours(3), [snap("a", "0.4", hours(3)), snap("b", "0.6", T0)], r0.universe);
    expect(r1.level?.stale).toBe(true);
    expect(r1.level?.dataQuality).toEqual({
      freshDataPct: 50,
      freshMarketsCount: 1,
      staleMarketsCount: 1,
      totalMarketsCount: 2,
    });
    expect(indexStatus(r1.state).stale).toBe(true);
    const r2 = stepIndex(
      def,
      r1.state,
      hours(4),
      [snap("a", "0.4", hours(4)), snap("b", "0.6", hours(4))],
      r0.universe,
    );
    expect(r2.level?.stale).toBe(false);
  });

  test("a constituent with no snapshot passed keeps its last price and ages", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    const r1 = stepIndex(def, r0.state, hours(1), [snap("a", "0.5", hours(1))], r0.universe);
    expect(r1.level?.indexLevel).toBe("110.00000000");
    const r2 = stepIndex(def, r1.state, hours(3), [snap("a", "0.5", hours(3))], r0.universe);
    expect(r2.level?.stale).toBe(true);
  });

  test("a PERPETUAL index ceases when its universe is empty, after publishing its last level", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    const r1 = stepIndex(
      def,
      r0.state,
      hours(1),
      [resolvedSnap("a", 1, hours(1)), resolvedSnap("b", 0, hours(1))],
      r0.universe,
    );
    expect(r1.level?.indexLevel).toBe("100.00000000");
    expect(r1.state.ceasedAt).toBe(hours(1).toISOString());
    expect(indexStatus(r1.state)).toMatchObject({ publicStatus: "ceased", seriesFullyResolved: false });
    const r2 = stepIndex(def, r1.state, hours(2), [], r0.universe);
    expect(r2.level).toBeNull();
  });

  test("a DATED index resolves when all its markets resolved", () => {
    const dated = indexDef({ maturityType: "DATED" });
    const universe = [market("a"), market("b")];
    const r0 = stepIndex(dated, null, T0, [snap("a", "0.4", T0), snap("b", "0.6", T0)], universe);
    const r1 = stepIndex(
      dated,
      r0.state,
      hours(1),
      [resolvedSnap("a", 1, hours(1)), snap("b", "0.7", hours(1))],
      universe,
    );
    expect(indexStatus(r1.state)).toMatchObject({
      publicStatus: "active",
      seriesPartiallyResolved: true,
      seriesFullyResolved: false,
    });
    const r2 = stepIndex(dated, r1.state, hours(2), [resolvedSnap("b", 1, hours(2))], universe);
    expect(r2.level?.indexLevel).toBe("242.85714286");
    expect(indexStatus(r2.state)).toMatchObject({
      publicStatus: "resolved",
      resolvedAt: hours(2).toISOString(),
      seriesFullyResolved: true,
      seriesPartiallyResolved: false,
    });
  });

  test("steps must move forward in time", () => {
    const r0 = incept({ a: "0.4" });
    expect(() => stepIndex(def, r0.state, T0, [], r0.universe)).toThrow(RangeError);
  });

  test("state is JSON-safe: a round trip through JSON gives the same next level", () => {
    const r0 = incept({ a: "0.4", b: "0.6" });
    const copy = JSON.parse(JSON.stringify(r0.state)) as IndexState;
    const snaps = [snap("a", "0.41", hours(1)), snap("b", "0.63", hours(1))];
    expect(stepIndex(def, copy, hours(1), snaps, r0.universe)).toEqual(
      stepIndex(def, r0.state, hours(1), snaps, r0.universe),
    );
  });
});
