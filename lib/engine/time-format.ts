import { boundedCache } from "./bounded-cache";

// Timestamps on the wire carry microseconds; JS dates hold milliseconds, so the last three digits are zeros.

/** `2025-01-02T03:04:05.678000Z`, or without the `Z` where the spec asks for a naive UTC value. */
export function formatMicros(date: Date, withZone = true): string {
  const iso = date.toISOString();
  const micros = `${iso.slice(0, 23)}000`;
  return withZone ? `${micros}Z` : micros;
}

/** ISO calendar date (UTC) of a timestamp. */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** ISO texts by time: the engine writes the same few hours' times for every constituent of every index. */
const isoTexts = boundedCache<number, string>(8_192);

/** `date.toISOString()`, each distinct time formatted once. */
export function isoTime(date: Date): string {
  return isoTexts(date.getTime(), () => date.toISOString());
}

export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;

/** The start of the hour containing t (UTC). */
export const floorHour = (t: Date): Date => new Date(Math.floor(t.getTime() / MS_PER_HOUR) * MS_PER_HOUR);
/** The first whole hour at or after t. */
export const ceilHour = (t: Date): Date => new Date(Math.ceil(t.getTime() / MS_PER_HOUR) * MS_PER_HOUR);
export const nextHour = (t: Date): Date => new Date(t.getTime() + MS_PER_HOUR);
