import { describe, expect, test } from "vitest";
import { changeDirection, changePct, formatPct } from "@/lib/site/change";

describe("change in percent from decimal levels", () => {
  test.each([
    ["100.00000000", "101.00000000", "+1.00%", "up"],
    ["100.00000000", "99.00000000", "-1.00%", "down"],
    ["100.00000000", "100.00000000", "0.00%", "flat"],
    // 0.004999...% rounds to 0.00%, never to "-0.00%" or "+0.00%"
    ["100.00000000", "99.99999999", "0.00%", "flat"],
    ["100.00000000", "100.00500000", "0.00%", "flat"],
    // half-even at the second decimal: 0.125% -> 0.12%, 0.135% -> 0.14%
    ["100.00000000", "100.12500000", "+0.12%", "up"],
    ["100.00000000", "100.13500000", "+0.14%", "up"],
    ["3.57459425", "14.16205458", "+296.19%", "up"],
    ["77.39002984", "76.66428636", "-0.94%", "down"],
  ])("%s -> %s is %s", (from, to, text, direction) => {
    const pct = changePct(from, to);
    expect(formatPct(pct)).toBe(text);
    expect(changeDirection(pct)).toBe(direction);
  });

  test("is exact, not float arithmetic", () => {
    // (0.3 - 0.1) / 0.1 in floats is 1.9999999999999996
    expect(changePct("0.10000000", "0.30000000")?.toString()).toBe("200");
  });

  test.each([
    [null, "100.00000000"],
    ["100.00000000", null],
    [undefined, "1"],
    ["0.00000000", "1.00000000"],
  ])("no change from %s to %s", (from, to) => {
    expect(changePct(from, to)).toBeNull();
    expect(formatPct(changePct(from, to))).toBe("—");
    expect(changeDirection(changePct(from, to))).toBe("none");
  });
});
