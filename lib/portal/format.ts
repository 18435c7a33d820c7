// Formatting shared by the portal's server and browser components. Everything is UTC and
// en-US, so the server's HTML and the browser's hydration agree character for character.

const numbers = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return numbers.format(n);
}

/** `2026-11-22 14:05 UTC` */
export function formatUtc(iso: string | null): string {
  if (!iso) return "Never";
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** `14:00` (hour buckets, UTC) */
export function formatHour(iso: string): string {
  return `${new Date(iso).toISOString().slice(11, 13)}:00`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `Nov 22` (day buckets, UTC) */
export function formatDay(iso: string): string {
  const d = new Date(iso);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** How a key is shown: its display prefix and last four characters, never more. */
export function maskedKey(key: { prefix: string; lastFour: string }): string {
  return `${key.prefix}…${key.lastFour}`;
}

export const STATUS_LABEL = { active: "Active", rotated: "Rotated", revoked: "Revoked" } as const;

/** `2026-11-22 14:05:09 UTC`: to the second, for a request's time. */
export function formatUtcSeconds(iso: string): string {
  const d = new Date(iso).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 19)} UTC`;
}
