import type { PartitionOrder } from "./ordered";
import type { ClockEstimate } from "./types";

// The calendar clock's prior speed. Before a tenor has the history its own clock needs (the tier
// switch in clock.ts), it runs on calendar time at a prior speed pooled from the history of
// series of the same partition kind, not at 1; the interval is the pooled estimate's.

export interface ClockPrior {
  speed: number;
  speedLo: number;
  speedHi: number;
}

/**
 * Pooled realized / predicted variance over every hourly clock increment of the reference history
 * (the demo's 120-day history of each kind of partition under vol-2.0, `scripts/vol-calibration.ts`
 * prints it), with the 95% interval of the ratio estimator over daily sums, rounded to two
 * decimals; reviewed with the methodology (governance: annual review).
 */
export const CALENDAR_PRIOR: Readonly<Record<PartitionOrder, ClockPrior>> = {
  // pooled 1.0413 (95% 1.0062 to 1.0764) over 121 days of the demo's three ordered partitions
  ordered: { speed: 1.04, speedLo: 1.01, speedHi: 1.08 },
  // pooled 0.7099 (95% 0.6721 to 0.7477) over 121 days of the demo's two unordered partitions
  unordered: { speed: 0.71, speedLo: 0.67, speedHi: 0.75 },
};

/** A tenor on the calendar tier runs at the prior speed of its partition kind; a historical clock is left as it is. */
export function withCalendarPrior(c: ClockEstimate, order: PartitionOrder): ClockEstimate {
  if (c.tier !== "budget-implied") return c;
  const prior = CALENDAR_PRIOR[order];
  return { ...c, speed: prior.speed, speedLo: prior.speedLo, speedHi: prior.speedHi };
}
