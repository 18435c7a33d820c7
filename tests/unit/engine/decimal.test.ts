import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { dec, Dec, fullPrecision, publishLevel } from "@/lib/engine/decimal";
import { isoTime } from "@/lib/engine/time-format";

// Rule (lib/engine/decimal.ts): dec() never changes a value; a decimal of the engine context is
// used as it is and a text is parsed once, so the millions of prices of a back-calculation share
// a few decimals; fullPrecision and isoTime give exactly what toString and toISOString give.

describe("engine decimals", () => {
  it("gives the same decimal for the same text, and an engine decimal as it is", () => {
    const a = dec("0.4512");
    expect(dec("0.4512")).toBe(a);
    expect(dec(a)).toBe(a);
    expect(a.constructor).toBe(Dec);
    // a decimal of another context is re-homed, its value unchanged
    const plain = new Decimal("0.1");
    expect(dec(plain)).not.toBe(plain);
    expect(dec(plain).constructor).toBe(Dec);
    expect(dec(plain).equals(plain)).toBe(true);
    // equal values written differently are different texts, with the same value
    expect(dec("0.45000000").equals(dec("0.45"))).toBe(true);
    expect(dec(0.25).toString()).toBe("0.25");
  });

  it("computes in the engine's context whatever the input: 50 digits, half-even, never an exponent", () => {
    const third = dec("1").div(dec("3"));
    expect(third.toString()).toBe(`0.${"3".repeat(50)}`);
    expect(fullPrecision(dec("0.0000000123"))).toBe("0.0000000123");
    expect(publishLevel(dec("100.000000125"))).toBe("100.00000012");
    expect(publishLevel(dec("100.000000135"))).toBe("100.00000014");
  });

  it("fullPrecision of a decimal made from text is its plain toString, trailing zeros dropped", () => {
    for (const text of ["0.4500", "1", "0.00000001", "99.99999999", "-0.5"])
      expect(fullPrecision(dec(text))).toBe(new Dec(text).toString());
  });

  it("keeps parsing correctly after its map of texts was cleared when full", () => {
    const first = dec("0.123456");
    for (let i = 0; i < 70_000; i++) dec(`0.${i}`);
    const again = dec("0.123456");
    expect(again.equals(first)).toBe(true);
    expect(fullPrecision(again)).toBe("0.123456");
  });

  it("isoTime is toISOString, each time formatted once", () => {
    const t = new Date(Date.UTC(2026, 10, 27, 13));
    expect(isoTime(t)).toBe(t.toISOString());
    expect(isoTime(new Date(t.getTime()))).toBe(isoTime(t));
    for (let h = 0; h < 10_000; h++) isoTime(new Date(t.getTime() + h * 3_600_000));
    expect(isoTime(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });
});
