import { describe, expect, it } from "vitest";
import { diffusionVariance } from "@/lib/engine/volatility/diffusion-share";
import { FLOOR_P, floorPartition, orderedLegVariance } from "@/lib/engine/volatility/ordered";
import { legTenorVariance, partitionTenorVariance, preparePartition } from "@/lib/engine/volatility/tenor-variance";
import { intervalVariances, phiInverse } from "../../../scripts/lib/independent-normal";

// Rule (methodology, "Ordered partitions"): the legs of an ordered partition are consecutive
// intervals of one diffusing state, and leg j's variance realized over the fraction rho of the time
// left is Phi2(b,b;rho) - 2 Phi2(a,b;rho) + Phi2(a,a;rho) - p_j^2 with a, b = Phi^-1 of the
// cumulative probabilities below and up to it. The known truth here is computed apart from the
// engine: the expectation over the Brownian step of (P_j(after) - p_j)^2 by Simpson's rule with a
// normal CDF of its own (scripts/lib/independent-normal.ts), and the scipy values of
// METHODOLOGY-NOTES.md.

const DAYS = 100;

/** The engine's expected variance per leg at horizon fraction rho (tenor = rho * days to settlement, calendar speed 1). */
function engineLegs(p: readonly number[], rho: number): number[] {
  const part = preparePartition(
    p,
    p.map(() => DAYS),
    "ordered",
  );
  return p.map((_, j) => legTenorVariance(part, j, rho * DAYS, 1, "diffusion"));
}

/** The truth: legs between thresholds Phi^-1(C_j) of a standard normal state, a step of variance rho, then 1 - rho. */
function truthLegs(p: readonly number[], rho: number): number[] {
  const thresholds: number[] = [];
  let c = 0;
  for (const pj of p.slice(0, -1)) thresholds.push(phiInverse((c += pj)));
  return intervalVariances(thresholds, 0, Math.sqrt(rho), Math.sqrt(1 - rho), 1200);
}

const PARTITIONS: ReadonlyArray<{ name: string; p: number[] }> = [
  { name: "three legs (the notes' test vector)", p: [0.2, 0.5, 0.3] },
  { name: "six rate buckets", p: [0.05, 0.15, 0.3, 0.3, 0.15, 0.05] },
  { name: "skewed to the first leg", p: [0.6, 0.3, 0.1] },
  { name: "a nearly decided event", p: [0.01, 0.97, 0.02] },
  { name: "seven price ranges", p: [0.08, 0.12, 0.2, 0.25, 0.18, 0.11, 0.06] },
];
const RHOS = [0.002, 0.05, 0.25, 0.5, 0.51, 0.8, 0.97];

describe("ordered partition: the cumulative form against an independent integration", () => {
  for (const { name, p } of PARTITIONS) {
    for (const rho of RHOS) {
      it(`${name}, rho ${rho}: every leg and the sum within 1%`, () => {
        const engine = engineLegs(p, rho);
        const truth = truthLegs(p, rho);
        engine.forEach((v, j) => expect(Math.abs(v / (truth[j] as number) - 1)).toBeLessThan(0.01));
        const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
        expect(Math.abs(sum(engine) / sum(truth) - 1)).toBeLessThan(0.01);
        const part = preparePartition(
          p,
          p.map(() => DAYS),
          "ordered",
        );
        expect(partitionTenorVariance(part, rho * DAYS, 1, "diffusion")).toBeCloseTo(sum(engine), 15);
      });
    }
  }
});

describe("ordered partition: test values and limits", () => {
  it("matches the notes' scipy values for p = (0.2, 0.5, 0.3) at rho = 0.25", () => {
    const legs = engineLegs([0.2, 0.5, 0.3], 0.25);
    expect(legs[0]).toBeCloseTo(0.02139624, 8);
    expect(legs[1]).toBeCloseTo(0.00686688, 8);
    expect(legs[2]).toBeCloseTo(0.03147089, 8);
    expect(legs.reduce((s, x) => s + x, 0)).toBeCloseTo(0.05973401, 8);
  });

  it("an end leg is one threshold: it equals the leg priced as a binary (Phi2(x, -inf) = 0, Phi2(+inf, +inf) = 1)", () => {
    for (const rho of [0.01, 0.3, 0.7]) {
      const legs = engineLegs([0.2, 0.5, 0.3], rho);
      expect(legs[0]).toBeCloseTo(diffusionVariance(0.2, rho), 13);
      expect(legs[2]).toBeCloseTo(diffusionVariance(0.3, rho), 13);
      // the interior leg realizes less than a binary at 0.5 would (six-fold less at rho = 0.25)
      expect(legs[1] as number).toBeLessThan(diffusionVariance(0.5, rho));
    }
  });

  it("is 0 at rho = 0 and p(1 - p) at resolution (a tenor that reaches settlement)", () => {
    const p = [0.05, 0.15, 0.3, 0.3, 0.15, 0.05];
    expect(engineLegs(p, 0)).toEqual(p.map(() => 0));
    const part = preparePartition(
      p,
      p.map(() => 10),
      "ordered",
    );
    p.forEach((pj, j) => expect(legTenorVariance(part, j, 30, 1, "diffusion")).toBeCloseTo(pj * (1 - pj), 15));
  });

  it("is continuous where the integral form hands over to the closed form (rho = 0.5)", () => {
    const a = phiInverse(0.2);
    const b = phiInverse(0.7);
    const below = orderedLegVariance(a, b, 0.5, 0.5);
    const above = orderedLegVariance(a, b, 0.5, 0.5 + 1e-9);
    expect(Math.abs(above - below)).toBeLessThan(1e-8);
  });

  it("an unordered partition is priced as before: each leg as its own binary", () => {
    const p = [0.2, 0.5, 0.3];
    const part = preparePartition(
      p,
      p.map(() => DAYS),
    );
    p.forEach((pj, j) => expect(legTenorVariance(part, j, 25, 1, "diffusion")).toBe(diffusionVariance(pj, 0.25)));
  });
});

describe("one-tick floor", () => {
  it("legs below the floor count as 0 and the others are rescaled to sum 1", () => {
    expect(FLOOR_P).toBe(0.005);
    const floored = floorPartition([0.002, 0.3, 0.696, 0.002]);
    expect(floored[0]).toBe(0);
    expect(floored[3]).toBe(0);
    expect(floored[1]).toBeCloseTo(0.3 / 0.996, 15);
    expect(floored.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 15);
    const untouched = [0.005, 0.5, 0.495];
    expect(floorPartition(untouched)).toEqual(untouched);
  });

  it("a decided event quoted at one tick on its dead legs has no remaining uncertainty", () => {
    // de-vigged p of about 0.002 on the legs whose fair value is 0 (a one-tick book either side of zero)
    const p = [0.002, 0.002, 0.994, 0.002];
    const part = preparePartition(p, [2, 2, 2, 2], "ordered");
    expect(part.budget).toBe(0);
    expect(partitionTenorVariance(part, 7, 1, "diffusion")).toBe(0);
    // without the floor the ticks alone would publish a remaining uncertainty of about 9.5 points
    expect(100 * Math.sqrt(preparePartition(p, [2, 2, 2, 2], "ordered", false).budget)).toBeGreaterThan(9);
  });
});
