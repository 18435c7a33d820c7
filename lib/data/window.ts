import { hasErrorKind } from "@/lib/plumbing/error-kind";
import { isoSeconds } from "@/lib/time-format";

const DAY_MS = 86_400_000;

/** How far back the history endpoints serve (`historyMaxDays`). */
export const HISTORY_MAX_DAYS = 90;

/** Point spacings of index history, on the API and the pages; the first one listed is not the default. */
export const INTERVALS = ["1h", "1d"] as const;
export type Interval = (typeof INTERVALS)[number];
export const DEFAULT_INTERVAL: Interval = "1d";
/** "1h or 1d": the values as the docs and messages name them. */
export const INTERVALS_TEXT = INTERVALS.join(" or ");

export interface Window {
  start: Date;
  end: Date;
  /** The requested start predated the trailing window. */
  clamped: boolean;
  /** Nothing can be served (the window lies entirely before the floor). */
  empty: boolean;
}

/** An InvalidWindowError from any copy of this module (the build bundles it in several chunks). */
export const isInvalidWindowError = (value: unknown): value is InvalidWindowError =>
  hasErrorKind(value, "InvalidWindowError");

/** `start` is not before the (clamped) `end`: the one window that cannot be served. */
export class InvalidWindowError extends Error {
  readonly kind = "InvalidWindowError" as const;
  constructor(
    readonly start: Date,
    readonly end: Date,
  ) {
    super(`start ${isoSeconds(start)} is not before end ${isoSeconds(end)}`);
    this.name = "InvalidWindowError";
  }
}

/**
 * The served window of a history request: start defaults to (and is clamped up to) now - 90
 * days; end defaults to (and is clamped down to) now; start not before end throws
 * InvalidWindowError, with a future end reported as the current time.
 */
export function resolveWindow(now: Date, start?: Date, end?: Date): Window {
  const floor = new Date(now.getTime() - HISTORY_MAX_DAYS * DAY_MS);
  const effectiveEnd = end && end < now ? end : now;
  if (start && start >= effectiveEnd) throw new InvalidWindowError(start, effectiveEnd);
  const clamped = !!start && start < floor;
  const effectiveStart = start && start > floor ? start : floor;
  return { start: effectiveStart, end: effectiveEnd, clamped, empty: effectiveEnd < floor };
}
