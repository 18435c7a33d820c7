import type { ClockBucket, ClockEstimate } from "./types";
import { fsum } from "../fsum";
import { MS_PER_DAY, isoDate } from "../time-format";
import { roundFixed } from "./round";

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

/** Clock speeds, their bounds and the coverage are published with this many decimals, and used as published. */
export const CLOCK_DECIMALS = 6;

/**
 * Adds one hourly increment (realized and predicted variance, probability^2) to its UTC-day bucket.
 * A day's realized and predicted are the correctly rounded sums (fsum) of its increments: the
 * newest bucket keeps its day's increments so far, so the day's sum does not depend on how the
 * hours were split into computations.
 */
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
    // same day: the day's increments so far (a state written before they were kept holds only the sums)
    const hours = {
      realized: [...(last.hours?.realized ?? [last.realized]), realized],
      predicted: [...(last.hours?.predicted ?? [last.predicted]), predicted],
    };
    return [
      ...buckets.slice(0, -1),
      { day, realized: fsum(hours.realized), predicted: fsum(hours.predicted), increments: last.increments + 1, hours },
    ];
  }
  // a new day: the finished day keeps only its sums
  const closed =
    last?.hours === undefined
      ? buckets
      : [
          ...buckets.slice(0, -1),
          { day: last.day, realized: last.realized, predicted: last.predicted, increments: last.increments },
        ];
  const kept = closed[0] !== undefined && closed[0].day < oldest ? closed.filter((b) => b.day >= oldest) : closed;
  return [
    ...kept,
    { day, realized, predicted, increments: 1, hours: { realized: [realized], predicted: [predicted] } },
  ];
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
  // correctly rounded sums of the window's day sums (the same double in any order, and in Python's math.fsum)
  const realized = fsum(inWindow.map((b) => b.realized));
  const predicted = fsum(inWindow.map((b) => b.predicted));
  if (!spansWindow || coverage < CLOCK_MIN_COVERAGE || predicted <= 0 || inWindow.length < 2) {
    return { ...CALENDAR_CLOCK, windowDays, coverage };
  }
  const speed = realized / predicted;
  const n = inWindow.length;
  const sse = fsum(
    inWindow.map((b) => {
      const e = b.realized - speed * b.predicted;
      return e * e;
    }),
  );
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

/**
 * The clock as published and used: speed, speedLo, speedHi and coverage rounded to CLOCK_DECIMALS
 * decimals, to nearest from the double's exact binary value (ties to even; a double is never
 * exactly halfway at six decimals). Every tenor's points are computed from these rounded values, so a
 * verifier recomputes them from the published digits.
 */
export function publishedClock(c: ClockEstimate): ClockEstimate {
  return {
    ...c,
    speed: roundFixed(c.speed, CLOCK_DECIMALS),
    speedLo: roundFixed(c.speedLo, CLOCK_DECIMALS),
    speedHi: roundFixed(c.speedHi, CLOCK_DECIMALS),
    coverage: roundFixed(c.coverage, CLOCK_DECIMALS),
  };
}
