import { describe, expect, test } from "vitest";
import { devig, devigAdditive, devigMultiplicative, devigPower, devigShin, type DevigMethod } from "@/lib/engine/devig";

const METHODS: DevigMethod[] = ["multiplicative", "power", "additive", "shin"];
const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);

describe("de-vig", () => {
  test("multiplicative on [0.55, 0.50] gives [0.5238, 0.4762] (regression)", () => {
    const p = devigMultiplicative([0.55, 0.5]);
    expect(p?.map((v) => Number(v.toFixed(4)))).toEqual([0.5238, 0.4762]);
  });

  test.each([
    ["power", [0.55, 0.5], [0.5256127309, 0.4743872691]],
    ["power", [0.5, 0.3, 0.25], [0.4834041399, 0.2829162977, 0.2336795624]],
    ["shin", [0.5, 0.3, 0.25], [0.4814953112, 0.2839336546, 0.2345710342]],
    ["multiplicative", [0.5, 0.3, 0.25], [0.4761904762, 0.2857142857, 0.2380952381]],
  ] as const)("%s on %j matches its regression values", (method, input, expected) => {
    const p = devig(method, input);
    expect(p).not.toBeNull();
    (p as number[]).forEach((v, i) => expect(v).toBeCloseTo(expected[i] as number, 9));
  });

  test.each(
    METHODS.flatMap(
      (m) =>
        [
          [m, [0.25, 0.25, 0.5]],
          [m, [0.1, 0.2, 0.3, 0.4]],
          [m, [0.7, 0.3]],
        ] as const,
    ),
  )("%s returns %j unchanged because it already sums to 1", (method, input) => {
    expect(devig(method, input)).toEqual([...input]);
  });

  test.each([[[0.55, 0.5]], [[0.62, 0.41]], [[0.9, 0.15]]])("for two outcomes Shin equals additive on %j", (input) => {
    const shin = devigShin(input) as number[];
    const additive = devigAdditive(input) as number[];
    shin.forEach((v, i) => expect(v).toBeCloseTo(additive[i] as number, 10));
  });

  test.each(
    METHODS.flatMap(
      (m) =>
        [
          [m, [0.56, 0.31, 0.19]],
          [m, [0.4, 0.3, 0.2, 0.05]],
        ] as const,
    ),
  )("%s output on %j sums to 1 and stays in [0, 1]", (method, input) => {
    const p = devig(method, input);
    if (p === null) return expect(method === "shin" && sum(input) < 1).toBe(true);
    expect(sum(p)).toBeCloseTo(1, 12);
    p.forEach((v) => expect(v).toBeGreaterThanOrEqual(0));
  });

  test("Shin is undefined when the legs sum to less than 1", () => {
    expect(devigShin([0.4, 0.3, 0.2])).toBeNull();
  });

  test("additive is undefined when a leg would go negative", () => {
    expect(devigAdditive([0.9, 0.3, 0.01])).toBeNull();
  });

  test("power handles underround as well as overround", () => {
    const under = devigPower([0.45, 0.3, 0.2]) as number[];
    expect(sum(under)).toBeCloseTo(1, 12);
    expect(under[0]).toBeGreaterThan(0.45);
  });

  test.each([[[]], [[0.5, Number.NaN]], [[1.2, 0.1]], [[0, 0]]])("rejects unusable input %j", (input) => {
    expect(devigMultiplicative(input)).toBeNull();
  });
});
