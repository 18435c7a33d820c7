import { describe, expect, test } from "vitest";
import { fsum } from "@/lib/engine/fsum";
import { roundFixed } from "@/lib/engine/volatility/round";

/** A double from C99 hex notation (1.hhh...p±e), as Python's float.fromhex reads it. */
function fromHex(s: string): number {
  const m = /^(-)?0x1\.([0-9a-f]{13})p([+-]\d+)$/.exec(s);
  if (m === null) throw new RangeError(s);
  const mantissa = Number.parseInt(`1${m[2]}`, 16) / 2 ** 52;
  return (m[1] ? -1 : 1) * mantissa * 2 ** Number(m[3]);
}

// Rule: sums that feed published numbers are correctly rounded (the exact sum rounded once), the
// semantics of Python's math.fsum. Known values: CPython's own test_math.testFsum cases.
describe("fsum: correctly rounded, order-independent sums (math.fsum semantics)", () => {
  const cases: Array<[number[], number]> = [
    [[], 0],
    [[0], 0],
    [[1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50], 1e-100],
    [[2 ** 53, -0.5, -(2 ** -54)], 2 ** 53 - 1],
    [[2 ** 53, 1.0, 2 ** -100], 2 ** 53 + 2],
    [[2 ** 53 + 10, 1.0, 2 ** -100], 2 ** 53 + 12],
    [[2 ** 53 - 4, 0.5, 2 ** -54], 2 ** 53 - 3],
    [Array.from({ length: 1000 }, (_, i) => 1 / (i + 1)), fromHex("0x1.df11f45f4e61ap+2")],
    [Array.from({ length: 1000 }, (_, i) => (-1) ** (i + 1) / (i + 1)), fromHex("-0x1.62a2af1bd3624p-1")],
    [[1e16, 1, 1e-16], 10000000000000002],
    [[1e16 - 2, 1 - 2 ** -53, -(1e16 - 2), -(1 - 2 ** -53)], 0],
    [Array(10).fill(0.1), 1],
  ];
  test.each(cases.map(([xs, want], i) => [i, xs, want] as const))("case %i", (_i, xs, want) => {
    expect(Object.is(fsum(xs), want)).toBe(true);
  });

  test("a left-to-right sum differs where fsum does not (0.1 ten times)", () => {
    expect(
      Array(10)
        .fill(0.1)
        .reduce((s: number, x: number) => s + x, 0),
    ).toBe(0.9999999999999999);
  });

  test("the same double in any order and any grouping", () => {
    const xs = Array.from({ length: 500 }, (_, i) => Math.sin(i * 1.7) * 10 ** ((i % 9) - 6));
    const want = fsum(xs);
    const reversed = fsum([...xs].reverse());
    const sorted = fsum([...xs].sort((a, b) => a - b));
    expect(reversed).toBe(want);
    expect(sorted).toBe(want);
    const shuffled = xs
      .map((x, i) => [x, (i * 7919) % 500] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([x]) => x);
    expect(fsum(shuffled)).toBe(want);
  });
});

// Rule: published clock numbers carry six decimals, rounded to nearest from the double's exact
// binary value. Known values: Python's Decimal(x).quantize(Decimal("0.000001"), ROUND_HALF_EVEN).
describe("roundFixed: six decimals from the exact binary value", () => {
  test.each([
    [1.0000005, 1.000001],
    [0.0000005, 0],
    [2.6750005, 2.675],
    [0.5629232031638461, 0.562923],
    [1.2345675, 1.234568],
    [-0.0000001, 0],
  ])("%d -> %d", (x, want) => {
    expect(Object.is(roundFixed(x, 6), want)).toBe(true);
  });
});
