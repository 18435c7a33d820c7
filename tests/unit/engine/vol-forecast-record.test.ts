import { describe, expect, test } from "vitest";
import { diffusionVariance } from "@/lib/engine/volatility/diffusion-share";
import {
  forecastWindows,
  realizedMovePts,
  summarizeRecord,
  type RecordPoint,
  type RecordWindow,
} from "@/lib/engine/volatility/forecast-record";
import { normCdf } from "@/lib/engine/volatility/normal";
import { Rng } from "@/lib/ingest/demo-prng";

const H = 3_600_000;
const D = 24 * H;
const point = (
  ms: number,
  p: Record<string, number>,
  tenorPts: Record<string, number>,
  published = true,
): RecordPoint => ({ ms, published, tenorPts, p: new Map(Object.entries(p)) });

// Rule: the forecast record pairs each closed window's expected move (published at its start)
// with the partition's realized move over it, 100 * sqrt(sum_j (p_j(end) - p_j(start))^2).
describe("forecast record windows", () => {
  test("the realized move of a partition, a leg missing at one end counting as 0", () => {
    expect(
      realizedMovePts(
        new Map([
          ["a", 0.5],
          ["b", 0.5],
        ]),
        new Map([
          ["a", 0.8],
          ["b", 0.2],
        ]),
      ),
    ).toBe(42.426407);
    // b left (resolved NO), c listed during the window
    expect(
      realizedMovePts(
        new Map([
          ["a", 0.6],
          ["b", 0.4],
        ]),
        new Map([
          ["a", 0.9],
          ["c", 0.1],
        ]),
      ),
    ).toBe(Number((100 * Math.sqrt(0.09 + 0.16 + 0.01)).toFixed(6)));
  });

  test("a window is closed when the computation at its end exists and both ends were published", () => {
    const t0 = Date.parse("2026-09-01T00:00:00Z");
    const points = [
      point(t0, { a: 0.5, b: 0.5 }, { "1": 10, "2": 14 }),
      point(t0 + H, { a: 0.5, b: 0.5 }, { "1": 10, "2": 14 }, false),
      point(t0 + D, { a: 0.6, b: 0.4 }, { "1": 9, "2": 13 }),
      point(t0 + D + H, { a: 0.6, b: 0.4 }, { "1": 9, "2": 13 }),
    ];
    const ws = forecastWindows(points, [1, 2]);
    expect(ws).toEqual([{ tenorDays: 1, startMs: t0, endMs: t0 + D, expectedPts: 10, realizedPts: 14.142136 }]);
  });

  test("independent windows do not overlap", () => {
    const ws: RecordWindow[] = Array.from({ length: 10 * 24 }, (_, h) => ({
      tenorDays: 7,
      startMs: h * H,
      endMs: h * H + 7 * D,
      expectedPts: 10,
      realizedPts: 10,
    }));
    const [s] = summarizeRecord(ws, [7]);
    expect(s).toMatchObject({
      tenorDays: 7,
      windows: 240,
      independentWindows: 2,
      varianceRatio: 1,
      medianRatio: 1,
      independentVarianceRatio: 1,
    });
  });
});

// Known truth: a yes/no market priced exactly by the diffusion (p = Phi(x / sqrt(T - t)), x
// Brownian) has E[(p(t + h) - p(t))^2] = Var_h(p(t), h / (T - t)): a calibrated expected move
// gives a variance ratio of 1, and the median realized / expected below 1 (most windows move little, a few a lot).
describe("a calibrated measure on a simulated diffusion", () => {
  test("variance ratio 1 within its sampling error; median ratio below 1", () => {
    const rng = new Rng(4242);
    const T = 60;
    const h = 7;
    const windows: RecordWindow[] = [];
    for (let i = 0; i < 20_000; i++) {
      const t0 = 30 * rng.next();
      const x0 = Math.sqrt(t0) * rng.normal();
      const x1 = x0 + Math.sqrt(h) * rng.normal();
      const p0 = normCdf(x0 / Math.sqrt(T - t0));
      const p1 = normCdf(x1 / Math.sqrt(T - t0 - h));
      const expected = 100 * Math.sqrt(2 * diffusionVariance(p0, h / (T - t0)));
      const realized = realizedMovePts(
        new Map([
          ["yes", p0],
          ["no", 1 - p0],
        ]),
        new Map([
          ["yes", p1],
          ["no", 1 - p1],
        ]),
      );
      windows.push({
        tenorDays: h,
        startMs: i * 8 * D,
        endMs: i * 8 * D + h * D,
        expectedPts: expected,
        realizedPts: realized,
      });
    }
    const [s] = summarizeRecord(windows, [h]);
    expect(s!.independentWindows).toBe(20_000);
    expect(s!.varianceRatio).toBeGreaterThan(0.95);
    expect(s!.varianceRatio).toBeLessThan(1.05);
    expect(s!.medianRatio).toBeLessThan(0.9);
  });
});
