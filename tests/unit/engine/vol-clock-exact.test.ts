import { describe, expect, test } from "vitest";
import { fsum } from "@/lib/engine/fsum";
import { addClockIncrement, estimateClock, publishedClock } from "@/lib/engine/volatility/clock";
import type { ClockBucket } from "@/lib/engine/volatility/types";
import { Rng } from "@/lib/ingest/demo-prng";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-05-01T00:00:00Z");

/** 50 days of hourly increments of a series, as the engine publishes them. */
function increments(seed: number) {
  const rng = new Rng(seed);
  return Array.from({ length: 50 * 24 }, (_, h) => {
    const z = rng.normal();
    return { t: new Date(T0 + h * HOUR), realized: (z * z * 1e-4) / 24, predicted: (1e-4 + 1e-5 * Math.sin(h)) / 24 };
  });
}

// Rule: the clock is the correctly rounded sum of the published hourly increments (each UTC day's
// increments by fsum, then the window's day sums by fsum), whatever the grouping of the hours into
// computations and however often the state was written and read in between.
describe("the clock from the published increments", () => {
  const incs = increments(7);

  test("a state written to JSON and read back after every hour gives the same buckets as one run", () => {
    let oneRun: ClockBucket[] = [];
    let reloaded: ClockBucket[] = [];
    for (const x of incs) {
      oneRun = addClockIncrement(oneRun, x.t, x.realized, x.predicted);
      reloaded = JSON.parse(JSON.stringify(addClockIncrement(reloaded, x.t, x.realized, x.predicted))) as ClockBucket[];
    }
    expect(reloaded).toEqual(oneRun);
  });

  test("each day's sums are the fsum of its increments, and only the newest day keeps its increments", () => {
    let buckets: ClockBucket[] = [];
    for (const x of incs) buckets = addClockIncrement(buckets, x.t, x.realized, x.predicted);
    for (const b of buckets) {
      const day = incs.filter((x) => x.t.toISOString().slice(0, 10) === b.day);
      expect(b.realized).toBe(fsum(day.map((x) => x.realized)));
      expect(b.predicted).toBe(fsum(day.map((x) => x.predicted)));
      expect(b.increments).toBe(day.length);
    }
    expect(buckets.slice(0, -1).every((b) => b.hours === undefined)).toBe(true);
    expect(buckets.at(-1)?.hours?.realized.length).toBe(24);
  });

  test("the published clock is the estimate rounded to six decimals, and its speed is realized over predicted", () => {
    let buckets: ClockBucket[] = [];
    for (const x of incs) buckets = addClockIncrement(buckets, x.t, x.realized, x.predicted);
    const t = new Date(T0 + 50 * 24 * HOUR);
    const raw = estimateClock(buckets, t, 7);
    const c = publishedClock(raw);
    expect(c.tier).toBe("historical-clock");
    for (const f of ["speed", "speedLo", "speedHi", "coverage"] as const) {
      expect(c[f]).toBe(Number(raw[f].toFixed(6)));
      expect(String(c[f])).toMatch(/^\d+(\.\d{1,6})?$/);
    }
    // the window: the days after t - 30 days up to t (here 2026-05-22 to 2026-06-19, the hours before t)
    const window = buckets.filter((b) => b.day > "2026-05-21");
    expect(window).toHaveLength(29);
    expect(raw.speed).toBe(fsum(window.map((b) => b.realized)) / fsum(window.map((b) => b.predicted)));
  });
});
