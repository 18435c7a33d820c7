// Display rules shared by the pages: a volatility value is never shown without its tenor.

/** Probability points to two decimals: `12.34`. */
export function formatPts(pts: number, digits = 2): string {
  return pts.toFixed(digits);
}

/** `30 days`, `1 day`. */
export function tenorText(days: number): string {
  return `${days} ${days === 1 ? "day" : "days"}`;
}

/** `12.34 pts over 30 days`: the only way a headline appears on the site. */
export function headlineText(pts: number, tenorDays: number): string {
  return `${formatPts(pts)} pts over ${tenorText(tenorDays)}`;
}

/** A share of the variance budget, as a percentage: `0.42` -> `42.0%`. */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export const STATUS_TEXT: Readonly<Record<string, string>> = {
  active: "Active",
  ceased: "Ceased",
  resolved: "Resolved",
  ok: "OK",
  flagged: "Flagged",
  suspended: "Suspended",
  published: "Published",
  withheld: "Withheld",
};

export function statusText(status: string): string {
  return STATUS_TEXT[status] ?? status.charAt(0).toUpperCase() + status.slice(1);
}

/** A count with thousands separators (`2,026 values`), so a count never reads as a year. */
export function formatCountOf(n: number): string {
  return n.toLocaleString("en-US");
}
