import { describe, expect, test } from "vitest";
import { formatMicros } from "@/lib/engine/time-format";
import { toHistoryPoint } from "@/lib/engine/volatility/history-point";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState, VolTick } from "@/lib/engine/volatility/types";
import { at, partition, volDef } from "./vol-fixtures";

// Rule: attrDeltaHeadlinePts is measured from the previous computation, published or withheld,
// and every tick and history point names that computation and whether it was published.

function run(thin: ReadonlySet<number>): VolTick[] {
  const def = volDef();
  let state: VolState | null = null;
  const ticks: VolTick[] = [];
  for (let h = 0; h < 4; h++) {
    const depth = thin.has(h) ? 10 : 5_000;
    const r = stepVolatility(
      def,
      state,
      at(h),
      partition(at(h), undefined, { 0: { depth }, 1: { depth }, 2: { depth }, 3: { depth } }),
    );
    state = r.state;
    if (r.tick) ticks.push(r.tick);
  }
  return ticks;
}

describe("attrDeltaFrom names the computation the delta is measured from", () => {
  const ticks = run(new Set([2]));

  test("the first computation has none", () => {
    expect(ticks[0]?.labels.attrDeltaFrom).toBeNull();
    expect(ticks[0]?.labels.attrDeltaFromPublished).toBeNull();
  });

  test.each([
    { i: 1, from: 0, published: true },
    { i: 2, from: 1, published: true },
    { i: 3, from: 2, published: false },
  ])("computation $i is measured from computation $from (published: $published)", ({ i, from, published }) => {
    const tick = ticks[i] as VolTick;
    const prev = ticks[from] as VolTick;
    expect(prev.publicationState).toBe(published ? "published" : "withheld");
    expect(tick.labels.attrDeltaFrom).toBe(formatMicros(prev.computedAt));
    expect(tick.labels.attrDeltaFromPublished).toBe(published);
    expect(tick.attrDeltaHeadlinePts).toBeCloseTo(tick.headlinePts - prev.headlinePts, 5);
    const point = toHistoryPoint(tick);
    expect(point.attrDeltaFrom).toBe(tick.labels.attrDeltaFrom);
    expect(point.attrDeltaFromPublished).toBe(published);
  });

  test("clock speed per tenor is published at full precision in labels and history points", () => {
    const tick = ticks[3] as VolTick;
    expect(Object.keys(tick.labels.clockSpeed).sort()).toEqual(["30", "7", "90"]);
    for (const [tenor, speed] of Object.entries(tick.labels.clockSpeed))
      expect(speed).toBe(tick.inputs.clock[tenor]?.speed);
    expect(toHistoryPoint(tick).clockSpeed).toEqual(tick.labels.clockSpeed);
  });
});
