import { describe, expect, it } from "vitest";
import { calibrate, quantile } from "../../../scripts/lib/demo-calibration";

// Rule (methodology, "Ordered partitions" and "The calendar clock's prior"): on the calendar clock
// the published expected variance of an ordered partition is calibrated. Known truth: the demo's
// simulator, whose ordered partitions are intervals of one Brownian factor; the truth is computed
// from its parameters with numerics of its own (scripts/lib/demo-calibration.ts), under the clock's
// own time mapping (calendar time, the whole remaining variance once a tenor reaches settlement).
// Target, per ordered series and tenor: truth / published with its median in 0.95-1.05 and at
// least 95% of hours within 0.90-1.10. `npx tsx --conditions=react-server scripts/vol-calibration.ts`
// prints the same over the 120 days of a fresh start, historical clock included.

describe("demo calibration of ordered partitions on the calendar clock", () => {
  const { samples } = calibrate({ days: 30, seed: 20261121, start: new Date("2026-07-31T09:00:00Z"), every: 4 });
  const ordered = ["PMV-FED", "PMV-BTCRANGE", "PMV-STORMS"];
  for (const ticker of ordered) {
    for (const tenor of [7, 30, 90]) {
      it(`${ticker} ${tenor} d: truth / published has its median in 0.95-1.05 and 95% of hours in 0.90-1.10`, () => {
        const ratios = samples
          .filter((s) => s.ticker === ticker && s.tenor === tenor && s.tier === "budget-implied")
          .map((s) => s.ratio);
        expect(ratios.length).toBeGreaterThan(100);
        const sorted = [...ratios].sort((a, b) => a - b);
        const median = quantile(sorted, 0.5);
        expect(median).toBeGreaterThanOrEqual(0.95);
        expect(median).toBeLessThanOrEqual(1.05);
        expect(ratios.filter((r) => r >= 0.9 && r <= 1.1).length / ratios.length).toBeGreaterThanOrEqual(0.95);
      });
    }
  }
  it("the unordered series are not in the check (their truth is a share process, tests/unit/engine/vol-share-process.test.ts)", () => {
    expect(samples.some((s) => s.ticker === "PMV-NOMINEE")).toBe(false);
  });
});
