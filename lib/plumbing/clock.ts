// The time as the service reads it: one clock per composition root (lib/root.ts), so a test can
// hold it still or move it instead of waiting for the real one.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
