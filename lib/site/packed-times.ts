// Compact time axes for chart data sent from a server page to a client chart: the first time in
// epoch milliseconds and each later one as a difference from the one before (3600000 for hourly
// data). API timestamps carry milliseconds at most (`.123000Z`), so this is exact both ways.

export interface PackedTimes {
  /** epoch milliseconds of the first point */
  t0: number;
  /** milliseconds from the previous point; `d[0]` is 0 */
  d: number[];
}

export function packTimes(ms: readonly number[]): PackedTimes {
  return { t0: ms[0] ?? 0, d: ms.map((m, i) => (i === 0 ? 0 : m - ms[i - 1]!)) };
}

export function unpackTimes(p: PackedTimes): number[] {
  const out: number[] = new Array(p.d.length);
  let t = p.t0;
  for (let i = 0; i < p.d.length; i++) {
    t += p.d[i]!;
    out[i] = t;
  }
  return out;
}

/** The API's timestamp form, `2026-11-21T13:00:00.000000Z` (or without `Z`). */
export function iso6(ms: number, zone = true): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000${zone ? "Z" : ""}`;
}
