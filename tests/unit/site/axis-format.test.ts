import { describe, expect, it } from "vitest";
import { tickLabel, timeTicks, timeWindow, toMs } from "@/components/charts/axis-format";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1); // a midnight
const rows = (from: number, to: number, step: number) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => ({ x: from + i * step }));

describe("chart time axis", () => {
  it.each([
    ["two days of hourly rows", rows(T0, T0 + 2 * DAY, HOUR), true, true],
    ["thirty days of daily rows", rows(T0, T0 + 30 * DAY, DAY), false, false],
    ["thirty days of hourly rows starting at midnight", rows(T0, T0 + 30 * DAY, HOUR), true, false],
    ["ten days of hourly rows: ticks fall on midnights", rows(T0 + 5 * HOUR, T0 + 10 * DAY, HOUR), true, false],
  ])("%s", (_name, r, hourly, withHour) => {
    const w = timeWindow(r, { hourly });
    expect(w.first).toBe(r[0]!.x);
    expect(w.last).toBe(r[r.length - 1]!.x);
    expect(w.ticks.length).toBeGreaterThan(0);
    expect(w.ticks.every((t) => t >= w.first && t <= w.last)).toBe(true);
    expect(w.withHour).toBe(withHour);
  });

  it("labels hours when they matter and reads API timestamps without a zone as UTC", () => {
    expect(tickLabel(T0 + 13 * HOUR, true)).toBe("1 Nov 13:00");
    expect(tickLabel(T0 + 13 * HOUR, false)).toBe("1 Nov");
    expect(toMs("2026-11-01T13:00:00.123456")).toBe(T0 + 13 * HOUR + 123);
    expect(toMs("2026-11-01T13:00:00.000000Z")).toBe(T0 + 13 * HOUR);
  });

  it("never puts more than the target number of ticks on an axis, and one tick on an empty span", () => {
    for (const span of [HOUR, 5 * HOUR, DAY, 7 * DAY, 90 * DAY])
      expect(timeTicks(T0, T0 + span).length).toBeLessThanOrEqual(7);
    expect(timeTicks(T0, T0)).toEqual([T0]);
    expect(timeWindow([]).ticks).toEqual([0]);
  });
});
