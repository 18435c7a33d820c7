import { ADDRESS_NAMESPACE, MINUTE_MS, resetSeconds, secondsUntil } from "./sliding-log";
import type { RateLimitStore, ThrottleDecision } from "./types";

/** 10 x the free per-key minute rate (DESIGN.md section 2). */
export const ADDRESS_LIMIT_PER_MINUTE = 600;

export interface ThrottleOptions {
  limit?: number;
  windowMs?: number;
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
  options: ThrottleOptions = {},
): Promise<ThrottleDecision> {
  const limit = options.limit ?? ADDRESS_LIMIT_PER_MINUTE;
  const window = { ms: options.windowMs ?? MINUTE_MS, limit };
  const outcome = await store.hit(ADDRESS_NAMESPACE + address, [window], nowMs);
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
