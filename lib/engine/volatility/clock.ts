import type { ClockBucket, ClockEstimate } from "./types";
import { MS_PER_DAY, isoDate } from "../time-format";

// The realized-variance clock: how fast a series has realized variance relative to what the
// diffusion on calendar time predicted. speed > 1 means the series' clock runs ahead of the calendar.

/** A tenor switches to the historical clock after max(30 days, tenor) of history with 60% of hours observed. */
export const CLOCK_MIN_DAYS = 30;
export const CLOCK_MIN_COVERAGE = 0.6;
export const CLOCK_SPEED_MIN = 0.25;
export const CLOCK_SPEED_MAX = 4;
/** Buckets older than this are dropped (the longest window any tenor uses). */
export const CLOCK_KEEP_DAYS = 366;
const Z95 = 1.959963984540054;

export const CALENDAR_CLOCK: ClockEstimate = {
  tier: "budget-implied",
  speed: 1,
  speedLo: 1,
  speedHi: 1,
  windowDays: 0,
  coverage: 0,
};

/** Adds one hourly increment (realized and predicted variance, probability^2) to its UTC-day bucket. */
export function addClockIncrement(
  buckets: readonly ClockBucket[],
  t: Date,
  realized: number,
  predicted: number,
): ClockBucket[] {
  const day = isoDate(t);
  const oldest = isoDate(new Date(t.getTime() - CLOCK_KEEP_DAYS * MS_PER_DAY));
  const last = buckets[buckets.length - 1];
  if (last !== undefined && last.day === day) {
    // same day: update the newest bucket in place of a copy
    return [
      ...buckets.slice(0, -1),
      {
        day,
        realized: last.realized + realized,
        predicted: last.predicted + predicted,
        increments: last.increments + 1,
      },
    ];
  }
  const kept = buckets[0] !== undefined && buckets[0].day < oldest ? buckets.filter((b) => b.day >= oldest) : buckets;
  return [...kept, { day, realized, predicted, increments: 1 }];
}

const clampSpeed = (v: number) => Math.min(CLOCK_SPEED_MAX, Math.max(CLOCK_SPEED_MIN, v));

/** Clock speed for one tenor: a ratio estimator over the trailing window, with a 95% interval from daily residuals. */
export function estimateClock(buckets: readonly ClockBucket[], t: Date, tenorDays: number): ClockEstimate {
  const windowDays = Math.max(CLOCK_MIN_DAYS, Math.ceil(tenorDays));
  const from = isoDate(new Date(t.getTime() - windowDays * MS_PER_DAY));
  const today = isoDate(t);
  let first = buckets.length;
  while (first > 0 && (buckets[first - 1] as ClockBucket).day > from) first--;
  const inWindow = buckets.slice(first).filter((b) => b.day <= today);
  const increments = inWindow.reduce((s, b) => s + b.increments, 0);
  const coverage = increments / (windowDays * 24);
  const earliest = inWindow[0]?.day;
  const spansWindow =
    earliest !== undefined && earliest <= isoDate(new Date(t.getTime() - (windowDays - 1) * MS_PER_DAY));
  const realized = inWindow.reduce((s, b) => s + b.realized, 0);
  const predicted = inWindow.reduce((s, b) => s + b.predicted, 0);
  if (!spansWindow || coverage < CLOCK_MIN_COVERAGE || predicted <= 0 || inWindow.length < 2) {
    return { ...CALENDAR_CLOCK, windowDays, coverage };
  }
  const speed = realized / predicted;
  const n = inWindow.length;
  const sse = inWindow.reduce((s, b) => s + (b.realized - speed * b.predicted) ** 2, 0);
  const se = Math.sqrt((n / (n - 1)) * sse) / predicted;
  return {
    tier: "historical-clock",
    speed: clampSpeed(speed),
    speedLo: clampSpeed(speed - Z95 * se),
    speedHi: clampSpeed(speed + Z95 * se),
    windowDays,
    coverage,
  };
}
