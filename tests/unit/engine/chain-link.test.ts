import Decimal from "decimal.js";
import { describe, expect, test } from "vitest";
import { basketValue, chainLevel } from "@/lib/engine/chain-link";
import { publishLevel } from "@/lib/engine/decimal";
import { stepIndex } from "@/lib/engine/index-level";
import type { IndexState } from "@/lib/engine/types";
import { T0, hours, indexDef, market, snap } from "./index-fixtures";

describe("level arithmetic is decimal, never binary floating point", () => {
  test("basket of 0.1 and 0.2 is exactly 0.3 (binary floats give 0.30000000000000004)", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(
      basketValue([
        { weight: "1", price: "0.1" },
        { weight: "1", price: "0.2" },
      ]).toString(),
    ).toBe("0.3");
  });

  // exact results that sit on a half-way point at the 9th decimal: any float error decides the rounding
  test.each([
    // link basket, basket now, exact level, published (ROUND_HALF_EVEN)
    ["0.3", "0.300000000045", "100.000000015", "100.00000002"],
    ["0.3", "0.300000000075", "100.000000025", "100.00000002"],
    ["0.7", "0.7000000002450", "100.000000035", "100.00000004"],
    ["0.3", "0.29999999998500", "99.999999995", "100.00000000"],
  ])("L = 100 * %s -> %s is exactly %s and publishes as %s", (linkBasket, basketNow, exact, published) => {
    const level = chainLevel("100", basketNow, linkBasket);
    expect(level.toString()).toBe(exact);
    expect(publishLevel(level)).toBe(published);
  });

  test("stepIndex publishes 100.00000002 where float arithmetic would publish 100.00000001", () => {
    const def = indexDef();
    const universe = [market("a"), market("b")];
    // basket at inception: 0.1 + 0.2 (in floats 0.30000000000000004)
    let state: IndexState | null = stepIndex(
      def,
      null,
      T0,
      [snap("a", "0.1", T0), snap("b", "0.2", T0)],
      universe,
    ).state;
    const r = stepIndex(
      def,
      state,
      hours(1),
      [snap("a", "0.100000000045", hours(1)), snap("b", "0.2", hours(1))],
      universe,
    );
    state = r.state;
    expect(r.level?.indexLevel).toBe("100.00000002");
    expect(r.level?.indexLevelUnrounded).toBe("100.000000015");
    const floatLevel = (100 * (0.100000000045 + 0.2)) / (0.1 + 0.2);
    expect(new Decimal(floatLevel).toFixed(8, Decimal.ROUND_HALF_EVEN)).toBe("100.00000001");
  });

  test("a thousand round trips through the same prices return to exactly 100", () => {
    const def = indexDef();
    const universe = [market("a"), market("b"), market("c")];
    const prices = [
      ["0.1", "0.2", "0.7"],
      ["0.13", "0.29", "0.61"],
      ["0.07", "0.31", "0.66"],
    ];
    let state: IndexState | null = null;
    let last = "";
    for (let h = 0; h <= 1000; h++) {
      const row = prices[h % 3] as string[];
      const snaps = ["a", "b", "c"].map((id, i) => snap(id, row[i] as string, hours(h)));
      const r = stepIndex(def, state, hours(h), snaps, universe);
      state = r.state;
      last = r.level?.indexLevelUnrounded ?? "";
      if (h % 3 === 0) expect(last).toBe("100");
    }
  });

  test.each([
    ["100.000000025", "100.00000002"],
    ["100.000000035", "100.00000004"],
    ["100.000000015", "100.00000002"],
    ["99.999999994999", "99.99999999"],
    ["123.456789125", "123.45678912"],
  ])("publishLevel(%s) = %s (eight decimals, ROUND_HALF_EVEN)", (raw, published) => {
    expect(publishLevel(new Decimal(raw))).toBe(published);
  });

  test("the engine ignores a caller's low-precision Decimal configuration", () => {
    const Low = Decimal.clone({ precision: 5 });
    const level = chainLevel(new Low("100"), new Low("0.123456789"), new Low("0.3"));
    expect(level.toString()).toBe("41.152263");
    expect(T0).toBeInstanceOf(Date);
  });
});
