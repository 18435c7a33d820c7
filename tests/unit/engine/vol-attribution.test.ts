import { describe, expect, test } from "vitest";
import { attributeLegs, shapleyTwoFactor } from "@/lib/engine/volatility/attribution";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState, VolTick } from "@/lib/engine/volatility/types";
import { Rng } from "@/lib/ingest/demo-prng";
import { BASE_MIDS, at, partition, volDef } from "./vol-fixtures";

describe("two-factor Shapley attribution", () => {
  test.each([
    // f(price, clock) = price * clock from (p0, c0) to (p1, c1)
    [2, 3, 5, 7, ((5 - 2) * (3 + 7)) / 2, ((7 - 3) * (2 + 5)) / 2],
    [1, 1, 1, 4, 0, 3],
    [1, 2, 3, 2, 4, 0],
  ])("p %d -> %d... splits the change of p*c into price %d and clock %d", (p0, c0, p1, c1, price, clock) => {
    const split = shapleyTwoFactor(p0 * c0, p1 * c0, p0 * c1, p1 * c1);
    expect(split.price).toBeCloseTo(price, 12);
    expect(split.clock).toBeCloseTo(clock, 12);
    expect(split.price + split.clock).toBeCloseTo(p1 * c1 - p0 * c0, 12);
  });

  test("an unchanged clock attributes everything to price", () => {
    const [leg] = attributeLegs(
      [
        {
          legKey: "a",
          label: "A",
          gridOrder: 0,
          p0: 0.3,
          p1: 0.4,
          clock0: { days: 50, speed: 1 },
          clock1: { days: 50, speed: 1 },
        },
      ],
      (p, c) => p * (c.days ?? 0),
    );
    expect(leg?.deltaClock).toBe(0);
    expect(leg?.deltaPrice).toBeCloseTo(5, 12);
  });
});

describe("attribution of a live series", () => {
  const def = volDef();
  const rng = new Rng(7);
  let mids = [...BASE_MIDS];
  let state: VolState | null = null;
  const ticks: VolTick[] = [];
  for (let h = 0; h < 240; h++) {
    const shocked = mids.map((m) => Math.max(0.02, m * Math.exp(0.03 * rng.normal())));
    const total = shocked.reduce((a, b) => a + b, 0);
    mids = shocked.map((m) => Number(((m / total) * 1.01).toFixed(4)));
    const r = stepVolatility(def, state, at(h), partition(at(h), mids));
    state = r.state;
    if (r.tick !== null) ticks.push(r.tick);
  }

  test.each(
    ticks
      .slice(1)
      .filter((_, i) => i % 20 === 0)
      .map((tick) => [tick.computedAt.toISOString(), tick] as const),
  )("%s: price and clock parts add up to the change in headline pts^2 (identity)", (_t, tick) => {
    const a = tick.attribution;
    const parts = a.legs.reduce((sum, l) => sum + l.deltaPrice + l.deltaClock, 0);
    expect(Math.abs(parts - a.deltaPts2)).toBeLessThanOrEqual(def.gates.identityTolerance);
    expect(a.status).toBe("ok");
    a.legs.forEach((l) => expect(l.delta).toBeCloseTo(l.deltaPrice + l.deltaClock, 5));
    expect(a.units).toBe("points squared");
    expect(a.unitsPts).toBe("points");
  });

  test("deltaPts2 is the change of the squared headline and deltaPts the change of the headline", () => {
    for (let i = 1; i < ticks.length; i++) {
      const prev = ticks[i - 1] as VolTick;
      const tick = ticks[i] as VolTick;
      expect(tick.attribution.deltaPts2).toBeCloseTo(tick.headlinePts ** 2 - prev.headlinePts ** 2, 3);
      expect(tick.attribution.deltaPts).toBeCloseTo(tick.headlinePts - prev.headlinePts, 5);
    }
  });

  test("with prices unchanged, the whole move is the clock (settlement one hour nearer)", () => {
    const r0 = stepVolatility(def, null, at(0), partition(at(0)));
    const r1 = stepVolatility(def, r0.state, at(1), partition(at(1)));
    const legs = r1.tick?.attribution.legs ?? [];
    expect(legs).toHaveLength(4);
    legs.forEach((l) => {
      expect(l.deltaPrice).toBe(0);
      expect(l.deltaClock).toBeGreaterThan(0);
    });
  });
});
