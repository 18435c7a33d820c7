import { describe, expect, it } from "vitest";
import type { LevelInputs } from "@/lib/engine/types";
import { compactLevelInputs, expandLevelInputs, setKey } from "@/lib/db/level-inputs";

// Rule (level storage): a level's inputs are stored as the prices of a constituent set kept once
// per index; read back, they are the inputs the engine wrote, in the same order.

const T = new Date("2026-10-02T05:00:00.000Z");
const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const full = (over: Partial<LevelInputs["constituents"][number]>[] = []): LevelInputs => ({
  pricingVersion: "v3",
  baseLevel: "104.12345678901234567",
  baseBasketValue: "0.4123",
  constituents: Array.from({ length: 40 }, (_, i) => ({
    conditionId: id(40 - i),
    price: `0.${400 + i}5`,
    source: "mid" as const,
    observedAt: T.toISOString(),
    stale: false,
    ...over[i],
  })),
});

describe("compact level inputs", () => {
  it("an hour of fresh mids keeps only the prices and the set's key", () => {
    const inputs = full();
    const c = compactLevelInputs(inputs, T);
    expect(c.ids).toEqual(inputs.constituents.map((x) => x.conditionId));
    expect(c.inputs).toEqual({
      pricingVersion: "v3",
      baseLevel: inputs.baseLevel,
      baseBasketValue: "0.4123",
      set: setKey(c.ids),
      p: inputs.constituents.map((x) => x.price),
    });
    expect(JSON.stringify(c.inputs).length).toBeLessThan(JSON.stringify(inputs).length / 5);
    expect(expandLevelInputs(c.inputs, "ix", T, new Map([[`ix|${c.inputs.set}`, c.ids]]))).toEqual(inputs);
  });

  it("stale constituents, earlier observations and settlements read back as written", () => {
    const inputs = full([
      { stale: true, observedAt: "2026-10-02T01:59:59.123Z" },
      {},
      { source: "settlement", price: "1" },
    ]);
    inputs.constituents[39]!.observedAt = "2026-10-02T04:00:00.000Z";
    const c = compactLevelInputs(inputs, T);
    expect(c.inputs.x).toEqual([0]);
    expect(c.inputs.s?.[2]).toBe("settlement");
    expect(c.inputs.o?.[0]).toBe(T.getTime() - Date.parse("2026-10-02T01:59:59.123Z"));
    expect(expandLevelInputs(c.inputs, "ix", T, new Map([[`ix|${c.inputs.set}`, c.ids]]))).toEqual(inputs);
  });

  it("the set's key follows the ids and their order", () => {
    expect(setKey([id(1), id(2)])).not.toBe(setKey([id(2), id(1)]));
    expect(setKey([id(1), id(2)])).toBe(setKey([id(1), id(2)]));
  });

  it("inputs stored in full (before the compact form) are read as they are", () => {
    const inputs = full([{ stale: true }]);
    expect(expandLevelInputs(inputs, "ix", T, new Map())).toBe(inputs);
  });

  it("a compact level whose set is missing is an error, not an empty panel", () => {
    const c = compactLevelInputs(full(), T);
    expect(() => expandLevelInputs(c.inputs, "ix", T, new Map())).toThrow(/not stored/);
  });
});
