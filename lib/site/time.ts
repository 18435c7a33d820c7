// Timestamps as the API writes them: microseconds, with `Z` (or without, on tick.computedAt).

/** Parses an API timestamp (6-digit fraction, `Z` optional: no zone means UTC). */
export function parseApiTime(iso: string): Date {
  let s = iso.trim().replace(/(\.\d{3})\d+/, "$1");
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(s)) s += "Z";
  return new Date(s);
}

/** To the second with `Z`, the form the pages put into copyable API calls. */
export function isoSecondsZ(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `2026-11-21 13:00 UTC`: what a reader sees; the exact timestamp stays in `dateTime`. */
export function formatUtc(value: string | Date, withSeconds = false): string {
  const d = typeof value === "string" ? parseApiTime(value) : value;
  if (Number.isNaN(d.getTime())) return String(value);
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}

/** `2026-11-21`, for day-granular labels. */
export function formatUtcDay(value: string | Date): string {
  const d = typeof value === "string" ? parseApiTime(value) : value;
  return d.toISOString().slice(0, 10);
}
