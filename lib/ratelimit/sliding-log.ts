import type {
  KeyLimits,
  LimitDecision,
  LogOutcome,
  LogWindow,
  RateLimitStore,
  ThrottleDecision,
  WindowCount,
} from "./types";

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Key namespaces inside one store: per-key limits and the per-address throttle never share a log. */
export const KEY_NAMESPACE = "key:";
export const ADDRESS_NAMESPACE = "addr:";

/** The two per-key windows, minute first. */
export function keyWindows(limits: KeyLimits): [LogWindow, LogWindow] {
  return [
    { ms: MINUTE_MS, limit: limits.minute },
    { ms: DAY_MS, limit: limits.day },
  ];
}

/**
 * Rounding, the one rule every header follows:
 *   reset      = ceil(resetMs / 1000)          (unix s; a retry at or after it is admitted)
 *   retryAfter = reset - floor(nowMs / 1000)   (whole s; >= 1 because resetMs > nowMs)
 * so `Retry-After` equals `X-RateLimit-Reset(-Day)` minus the current unix second exactly, and a
 * client that waits `Retry-After` seconds from any instant inside that second lands at or after
 * the moment the oldest counted request ages out. Both values come from the one `nowMs` the
 * store decided at, so they cannot disagree.
 */
export function resetSeconds(resetMs: number): number {
  return Math.ceil(resetMs / 1000);
}

export function secondsUntil(resetSec: number, nowMs: number): number {
  return resetSec - Math.floor(nowMs / 1000);
}

/** Whether this window is the (or a) reason for a refusal. */
function spent(w: WindowCount, window: LogWindow): boolean {
  return w.count >= window.limit;
}

function windowAt(outcome: LogOutcome, i: number): WindowCount {
  const w = outcome.windows[i];
  if (!w) throw new Error(`sliding log: store returned no count for window ${i}`);
  return w;
}

/** Turns a two-window outcome into the per-key decision. */
export function toDecision(limits: KeyLimits, outcome: LogOutcome): LimitDecision {
  const [minuteWindow, dayWindow] = keyWindows(limits);
  const minute = windowAt(outcome, 0);
  const day = windowAt(outcome, 1);
  const resetMinute = resetSeconds(minute.resetMs);
  const resetDay = resetSeconds(day.resetMs);
  const daySpent = spent(day, dayWindow);
  const minuteSpent = spent(minute, minuteWindow);
  let retryAfter: number | null = null;
  if (!outcome.allowed) {
    // Earliest instant a retry can pass: every spent window must have freed a slot.
    const waits: number[] = [];
    if (minuteSpent) waits.push(secondsUntil(resetMinute, outcome.nowMs));
    if (daySpent) waits.push(secondsUntil(resetDay, outcome.nowMs));
    retryAfter = Math.max(1, ...waits);
  }
  return {
    allowed: outcome.allowed,
    limited: outcome.allowed ? null : daySpent ? "day" : "minute",
    limitMinute: limits.minute,
    remainingMinute: Math.max(0, limits.minute - minute.count),
    resetMinute,
    limitDay: limits.day,
    remainingDay: Math.max(0, limits.day - day.count),
    resetDay,
    retryAfter,
  };
}

/** Builds the per-key methods of a store from its two primitives. */
export function withKeyMethods(
  primitives: Pick<RateLimitStore, "hit" | "look"> & { close?: () => Promise<void> },
): RateLimitStore {
  return {
    ...primitives,
    async consume(key, limits, nowMs) {
      return toDecision(limits, await primitives.hit(KEY_NAMESPACE + key, keyWindows(limits), nowMs));
    },
    async peek(key, limits, nowMs) {
      return toDecision(limits, await primitives.look(KEY_NAMESPACE + key, keyWindows(limits), nowMs));
    },
  };
}

/** Validates windows once at the store boundary: positive integer lengths, non-negative limits. */
export function checkWindows(windows: readonly LogWindow[]): void {
  if (windows.length === 0) throw new Error("sliding log: at least one window is required");
  for (const w of windows) {
    if (!Number.isInteger(w.ms) || w.ms <= 0) throw new Error(`sliding log: bad window ${w.ms}`);
    if (!Number.isInteger(w.limit) || w.limit < 0) throw new Error(`sliding log: bad limit ${w.limit}`);
  }
}

export interface ThrottleOptions {
  /** Requests admitted per window (the address throttle's is IP_LIMIT_MINUTE, lib/config.ts). */
  limit: number;
  /** Default: one minute. */
  windowMs?: number;
}

function addressWindow(options: ThrottleOptions) {
  return { ms: options.windowMs ?? MINUTE_MS, limit: options.limit };
}

function throttleDecision(outcome: LogOutcome, limit: number): ThrottleDecision {
  const counted = outcome.windows[0];
  if (!counted) throw new Error("throttle: store returned no window");
  const reset = resetSeconds(counted.resetMs);
  return {
    allowed: outcome.allowed,
    limit,
    remaining: Math.max(0, limit - counted.count),
    reset,
    retryAfter: outcome.allowed ? null : secondsUntil(reset, outcome.nowMs),
  };
}

/**
 * Per-address pre-authentication throttle: one sliding window in the same store as the per-key
 * limits, under its own namespace, so an address and a key with the same text never share a log.
 * Same rounding as the key limits: retryAfter = reset - floor(now in s).
 */
export async function throttle(
  store: RateLimitStore,
  address: string,
  nowMs: number,
  options: ThrottleOptions,
): Promise<ThrottleDecision> {
  const window = addressWindow(options);
  return throttleDecision(await store.hit(ADDRESS_NAMESPACE + address, [window], nowMs), window.limit);
}
