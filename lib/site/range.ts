// Chart windows on the public pages, linkable through `?range=&interval=`.
import { DEFAULT_INTERVAL, INTERVALS, type Interval } from "@/lib/data/window";

export { INTERVALS, type Interval };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export const RANGES = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type RangeKey = keyof typeof RANGES;
export const RANGE_KEYS = Object.keys(RANGES) as RangeKey[];
export const DEFAULT_RANGE: RangeKey = "30d";

type Param = string | string[] | undefined;

const first = (raw: Param): string | undefined => (Array.isArray(raw) ? raw[0] : raw);

/** `?range=`: one of 7d, 30d, 90d; anything else falls back to the default (pages never 4xx on it). */
export function parseRange(raw: Param): RangeKey {
  const v = first(raw)?.trim().toLowerCase();
  return v !== undefined && v in RANGES ? (v as RangeKey) : DEFAULT_RANGE;
}

/** `?interval=`: one of the API's intervals, with its default. */
export function parseIntervalParam(raw: Param): Interval {
  const v = first(raw)?.trim().toLowerCase();
  return (INTERVALS as readonly string[]).includes(v ?? "") ? (v as Interval) : DEFAULT_INTERVAL;
}

/**
 * The window a chart asks for: `end` is now to the second, `start` is `range` days earlier rounded
 * up to the whole hour. Levels and ticks fall on whole hours, so this serves the same points as
 * the unrounded window, and the copyable API call repeats it exactly for the rest of that hour.
 */
export function rangeRequest(now: Date, range: RangeKey): { start: Date; end: Date } {
  const end = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const start = new Date(Math.ceil((now.getTime() - RANGES[range] * DAY_MS) / HOUR_MS) * HOUR_MS);
  return { start, end };
}

/** Query string of a page link that changes one control and keeps the other. */
export function chartHref(path: string, params: { range: RangeKey; interval?: Interval }): string {
  const q = new URLSearchParams({ range: params.range });
  if (params.interval) q.set("interval", params.interval);
  return `${path}?${q.toString()}`;
}
