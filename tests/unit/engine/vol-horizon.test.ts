import { describe, expect, test } from "vitest";
import { diffusionVariance, horizonFraction, varianceToResolution } from "@/lib/engine/volatility/diffusion-share";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { ClockBucket, VolState } from "@/lib/engine/volatility/types";
import { isoDate, MS_PER_DAY } from "@/lib/engine/time-format";
import { at, legSnap, volDef } from "./vol-fixtures";

// Rule: when a tenor covers the time left to settlement, the whole remaining variance lies inside
// it (share 1) on any clock; before settlement the share is continuous and below 1.

const SPEEDS = [0.25, 0.5, 0.8, 1, 1.5, 2, 4];
const DAYS = 29.04;

describe("horizonFraction: the share reaches 1 at settlement on every clock speed", () => {
  test.each(SPEEDS)("speed %s: at settlement (tenor = time left) rho is 1", (speed) => {
    expect(horizonFraction(DAYS, DAYS, speed)).toBe(1);
  });

  test.each(SPEEDS)("speed %s: past settlement (tenor > time left) rho is 1", (speed) => {
    expect(horizonFraction(30, DAYS, speed)).toBe(1);
    expect(horizonFraction(90, DAYS, speed)).toBe(1);
    expect(horizonFraction(7, -1, speed)).toBe(1);
  });

  test.each(SPEEDS)("speed %s: just before settlement rho is below 1 and within 1e-6 of it (continuous)", (speed) => {
    const rho = horizonFraction(DAYS * (1 - 1e-7), DAYS, speed);
    expect(rho).toBeLessThan(1);
    expect(1 - rho).toBeLessThan(1e-6);
  });

  test.each(SPEEDS)("speed %s: rho increases with the tenor and starts at slope `speed`", (speed) => {
    const xs = [1e-6, 0.1, 0.25, 0.5, 0.75, 0.99];
    const rhos = xs.map((x) => horizonFraction(x * DAYS, DAYS, speed));
    for (let i = 1; i < rhos.length; i++) expect(rhos[i]).toBeGreaterThan(rhos[i - 1] as number);
    expect((rhos[0] as number) / 1e-6).toBeCloseTo(speed, 4);
  });

  test("calendar clock (speed 1) is the plain fraction tenor / time left", () => {
    expect(horizonFraction(7, 28, 1)).toBe(0.25);
  });

  test.each([
    { p: 0.5, speed: 0.5 },
    { p: 0.2, speed: 0.25 },
    { p: 0.7, speed: 3 },
  ])("p $p, speed $speed: the leg's tenor variance equals p(1-p) at and past settlement", ({ p, speed }) => {
    expect(diffusionVariance(p, horizonFraction(DAYS, DAYS, speed))).toBe(varianceToResolution(p));
    expect(diffusionVariance(p, horizonFraction(30, DAYS, speed))).toBe(varianceToResolution(p));
    expect(diffusionVariance(p, horizonFraction(DAYS * 0.999, DAYS, speed))).toBeLessThan(varianceToResolution(p));
  });
});

/** A state whose realized-variance clock ran at `speed` times the diffusion for the last 40 days. */
function stateWithClock(speed: number, t: Date, base: VolState): VolState {
  const clock: ClockBucket[] = [];
  for (let d = 40; d >= 1; d--) {
    const day = isoDate(new Date(t.getTime() - d * MS_PER_DAY));
    const predicted = 0.001 * (1 + (d % 3) * 0.1);
    clock.push({ day, realized: speed * predicted, predicted, increments: 24 });
  }
  return { ...base, clock };
}

describe("a tick whose settlement lies inside a tenor, on a slow historical clock", () => {
  // 29.04 days before settlement, as PMV-FED on 2026-11-23T23:00
  const settle = new Date(at(0).getTime() + DAYS * MS_PER_DAY);
  const def = volDef({ legs: ["yes", "no"], settlementDate: isoDate(settle), tenorsDays: [7, 30, 90] });
  const quotes = (h: number) => [legSnap("yes", at(h), { mid: 0.6 }), legSnap("no", at(h), { mid: 0.4 })];

  test.each([
    { speed: 0.5, tenor: "30" },
    { speed: 0.5, tenor: "90" },
    { speed: 2, tenor: "30" },
  ])(
    "speed $speed: the $tenor-day value is the whole remaining uncertainty (share 1, pts = fbvRPts)",
    ({ speed, tenor }) => {
      const first = stepVolatility(def, null, at(0), quotes(0));
      const t = at(1);
      const settleDays = (new Date(`${def.settlementDate}T00:00:00Z`).getTime() - t.getTime()) / MS_PER_DAY;
      expect(settleDays).toBeLessThan(30);
      const { tick } = stepVolatility(def, stateWithClock(speed, t, first.state), t, quotes(1));
      expect(tick?.labels.tier[tenor]).toBe(tenor === "90" ? "budget-implied" : "historical-clock");
      expect(tick?.tenors[tenor]?.share).toBe(1);
      expect(tick?.tenors[tenor]?.pts).toBe(tick?.fbvRPts);
      // the 7-day value is below the whole and moves with the clock
      expect(tick?.tenors["7"]?.share).toBeLessThan(1);
    },
  );
});
