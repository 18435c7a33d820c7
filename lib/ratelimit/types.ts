/** One sliding window of a log: a request counts for `ms` after it was admitted, at most `limit` count. */
export interface LogWindow {
  ms: number;
  limit: number;
}

/** What a store saw for one window, after the request was (or was not) recorded. */
export interface WindowCount {
  /** Requests counted in the window at `nowMs` (including this one when admitted). */
  count: number;
  /**
   * Unix ms when the window next frees a slot: the age-out time of the entry at index
   * max(0, count - limit) in admission order (the oldest counted request unless the limit was
   * lowered below the count); `nowMs + ms` when nothing is counted.
   */
  resetMs: number;
}

/** Result of one atomic check-and-record over several windows of one log. */
export interface LogOutcome {
  /** The instant the store decided at (the caller's clock or the Redis server's). */
  nowMs: number;
  /** True when every window had room; only then was the request recorded. */
  allowed: boolean;
  /** One entry per requested window, same order. */
  windows: WindowCount[];
}

/** Per-key decision; the pipeline turns it into X-RateLimit-* and Retry-After headers. */
export interface LimitDecision {
  allowed: boolean;
  /** Which window refused: "day" whenever the day window is spent, else "minute"; null when admitted. */
  limited: "minute" | "day" | null;
  limitMinute: number;
  remainingMinute: number;
  /** Unix seconds, rounded up, when the minute window next frees a slot (see sliding-log.ts). */
  resetMinute: number;
  limitDay: number;
  remainingDay: number;
  /** Unix seconds, rounded up, when the day window next frees a slot. */
  resetDay: number;
  /** On refusal only: whole seconds, = the later reset of the spent windows - floor(now in s). */
  retryAfter: number | null;
}

/** Per-address throttle decision (single window). */
export interface ThrottleDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds, rounded up, when the window next frees a slot. */
  reset: number;
  /** On refusal only: reset - floor(now in s). */
  retryAfter: number | null;
}

export interface KeyLimits {
  minute: number;
  day: number;
}

/** One log and its windows. */
export interface LogRequest {
  key: string;
  windows: readonly LogWindow[];
}

/** A sliding-log store. `hit`/`look` are the primitives; `consume`/`peek` are the per-key view. */
export interface RateLimitStore {
  /** Atomically: admit and record iff every window has room; a refused request is not recorded. */
  hit(key: string, windows: readonly LogWindow[], nowMs: number): Promise<LogOutcome>;
  /** The same counts without recording anything (`allowed` = whether a request now would pass). */
  look(key: string, windows: readonly LogWindow[], nowMs: number): Promise<LogOutcome>;
  /** Per-key minute + day windows; namespaced apart from the address throttle. */
  consume(key: string, limits: KeyLimits, nowMs: number): Promise<LimitDecision>;
  /** The per-key decision a request now would get, without spending anything. */
  peek(key: string, limits: KeyLimits, nowMs: number): Promise<LimitDecision>;
  close?(): Promise<void>;
}
