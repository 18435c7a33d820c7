// The time as the service reads it and writes it; no dependency on any layer. One clock per
// composition root (lib/root.ts), so a test can hold it still or move it instead of waiting for
// the real one; timestamps as the API and the CSV bundles write them.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with microseconds and Z: `2026-11-21T13:00:00.000000Z`. */
export function iso6(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

/** The same without Z, for the fields the spec names (tick.computedAt and friends). */
export function iso6NoZ(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000`;
}

export function isoOrNull(date: Date | null | undefined): string | null {
  return date ? iso6(date) : null;
}

/** To the second, for messages that quote parsed values. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
