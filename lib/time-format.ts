// Timestamps as the API and the CSV bundles write them; no dependency on any layer.
/** ISO 8601 UTC with microseconds and Z: `2026-11-21T13:00:00.000000Z`. */
export function iso6(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

let now6 = { ms: NaN, text: "" };

/** `iso6` of the current instant (`generatedAt`): one Date per millisecond, however many answers share it. */
export function iso6Now(nowMs = Date.now()): string {
  if (now6.ms !== nowMs) now6 = { ms: nowMs, text: iso6(new Date(nowMs)) };
  return now6.text;
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
