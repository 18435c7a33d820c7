import { ADDRESS_NAMESPACE, MINUTE_MS, resetSeconds, secondsUntil } from "./sliding-log";
import type { LogOutcome, RateLimitStore, ThrottleDecision } from "./types";

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
