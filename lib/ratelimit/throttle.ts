import { andThen, type Awaitable } from "@/lib/plumbing/awaitable";
import { ADDRESS_NAMESPACE, KEY_NAMESPACE, MINUTE_MS, keyWindows, resetSeconds, secondsUntil, toDecision } from "./sliding-log";
import type { KeyLimits, LimitDecision, LogOutcome, RateLimitStore, ThrottleDecision } from "./types";

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
 * A log's name in the store, kept per address or key id: a name built afresh for every request
 * would be hashed afresh by the store's Map, a kept one carries its hash. At most NAMES_KEPT of
 * each; when full, the names start again.
 */
const NAMES_KEPT = 10_000;
const addressNames = new Map<string, string>();
const keyNames = new Map<string, string>();

function logName(names: Map<string, string>, namespace: string, id: string): string {
  let name = names.get(id);
  if (name === undefined) {
    if (names.size >= NAMES_KEPT) names.clear();
    name = namespace + id;
    names.set(id, name);
  }
  return name;
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
  return throttleDecision(await store.hit(logName(addressNames, ADDRESS_NAMESPACE, address), [window], nowMs), window.limit);
}

/**
 * The address throttle and, only when it admits, the key's windows, in one atomic step of the
 * store (one Redis round trip): what `throttle` then `consume` decide, at one instant. `key` is
 * null when the address was refused; the key's windows were then not touched.
 */
export function throttleThenConsume(
  store: RateLimitStore,
  address: string,
  keyId: string,
  limits: KeyLimits,
  nowMs: number,
  options: ThrottleOptions,
): Awaitable<{ address: ThrottleDecision; key: LimitDecision | null }> {
  const window = addressWindow(options);
  const outcomes = store.hitThen(
    { key: logName(addressNames, ADDRESS_NAMESPACE, address), windows: [window] },
    { key: logName(keyNames, KEY_NAMESPACE, keyId), windows: keyWindows(limits) },
    nowMs,
  );
  return andThen(outcomes, ([a, k]) => ({ address: throttleDecision(a, window.limit), key: k ? toDecision(limits, k) : null }));
}
