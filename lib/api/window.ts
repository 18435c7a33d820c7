import { ApiError, errorMessage } from "@/lib/api/errors";
import { isoSeconds } from "@/lib/api/format";
import { HISTORY_MAX_DAYS } from "@/lib/api/params";

const DAY_MS = 86_400_000;

export interface Window {
  start: Date;
  end: Date;
  /** The requested start predated the trailing window. */
  clamped: boolean;
  /** Nothing can be served (the window lies entirely before the floor). */
  empty: boolean;
}

/**
 * The served window of a history request: start defaults to (and is clamped up to) now - 90
 * days; end defaults to (and is clamped down to) now; start not before end is `invalid_window`,
 * with a future end reported as the current time.
 */
export function resolveWindow(now: Date, start?: Date, end?: Date): Window {
  const floor = new Date(now.getTime() - HISTORY_MAX_DAYS * DAY_MS);
  const effectiveEnd = end && end < now ? end : now;
  if (start && start >= effectiveEnd) {
    throw new ApiError("invalid_window", {
      message: errorMessage("invalid_window", { start: isoSeconds(start), end: isoSeconds(effectiveEnd) }),
    });
  }
  const clamped = !!start && start < floor;
  const effectiveStart = start && start > floor ? start : floor;
  return { start: effectiveStart, end: effectiveEnd, clamped, empty: effectiveEnd < floor };
}
