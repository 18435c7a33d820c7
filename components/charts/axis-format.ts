// Axis and tooltip labels, always in UTC so the server and every reader see the same text.

const HOUR = 3_600_000;
const DAY = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `21 Nov` for day ticks, `21 Nov 13:00` when hours matter. */
export function tickLabel(ms: number, withHour: boolean): string {
  const d = new Date(ms);
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  return withHour ? `${day} ${d.toISOString().slice(11, 16)}` : day;
}

/** `2026-11-21 13:00 UTC`. */
export function fullLabel(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Parses an API timestamp (microseconds, `Z` optional) to epoch milliseconds. */
export function toMs(iso: string): number {
  let s = iso.replace(/(\.\d{3})\d+/, "$1");
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(s)) s += "Z";
  return Date.parse(s);
}

/** Whole UTC days or hours between ticks, chosen for the span shown. */
export function timeTicks(minMs: number, maxMs: number, target = 6): number[] {
  if (!(maxMs > minMs)) return Number.isFinite(minMs) ? [minMs] : [];
  const steps = [HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY];
  const step = steps.find((s) => (maxMs - minMs) / s <= target) ?? 30 * DAY;
  const ticks: number[] = [];
  for (let t = Math.ceil(minMs / step) * step; t <= maxMs; t += step) ticks.push(t);
  return ticks;
}

export interface TimeWindow {
  first: number;
  last: number;
  ticks: number[];
  /** tick labels carry the hour */
  withHour: boolean;
}

/** The time axis over rows in time order (`x` in epoch milliseconds). */
export function timeWindow(
  rows: ReadonlyArray<{ x: number }>,
  { hourly = false }: { hourly?: boolean } = {},
): TimeWindow {
  const first = rows[0]?.x ?? 0;
  const last = rows[rows.length - 1]?.x ?? 0;
  const ticks = timeTicks(first, last);
  // Hours matter over three days or less, and for hourly rows whose ticks fall between midnights.
  const withHour = last - first <= 3 * DAY || (hourly && ticks.some((t) => t % DAY !== 0));
  return { first, last, ticks, withHour };
}

/**
 * A log axis whose ends are labelled: the domain runs from the lowest level rounded down to the
 * highest rounded up (at the axis' two decimals), with five ticks spaced evenly on the log scale,
 * the first and last of them the bounds.
 */
export function logAxis(
  rows: ReadonlyArray<{ y: number }>,
): { domain: [number, number]; ticks: number[] } | Record<string, never> {
  const ys = rows.map((r) => r.y).filter((y) => y > 0 && Number.isFinite(y));
  if (ys.length === 0) return {};
  let lo = Math.floor(Math.min(...ys) * 100) / 100;
  let hi = Math.ceil(Math.max(...ys) * 100) / 100;
  if (!(hi > lo)) [lo, hi] = [Math.floor(lo * 99) / 100, Math.ceil(hi * 101) / 100];
  if (!(lo > 0)) lo = Math.min(...ys);
  const ticks = [0, 1, 2, 3, 4].map((i) => (i === 0 ? lo : i === 4 ? hi : lo * (hi / lo) ** (i / 4)));
  return { domain: [lo, hi], ticks };
}
