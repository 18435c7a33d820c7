import { fsum } from "../fsum";
import { round6 } from "./round";

// The forecast record: for each tenor, every window [t0, t0 + tenor] whose end has been computed,
// the expected move published at t0 and the move the partition actually made over the window.
// Both in probability points:
//   expected_pts = the tenor's published `pts` at t0 (100 * sqrt of the expected sum over legs of
//                  the squared change of p over the tenor)
//   realized_pts = 100 * sqrt( sum_j (p_j(t0 + tenor) - p_j(t0))^2 )
// over the legs quoted at either end (a leg not priced at one end counts as 0 there: it left
// resolved NO, or it listed during the window), with p the de-vigged probabilities as published in
// the leg panel, the sum correctly rounded (fsum) and each square x * x, rounded to six decimals.
// A window is in the record when the computations at both ends were published (not withheld).
// If the measure is calibrated, the mean of realized^2 / expected^2 (the variance ratio) is 1.

const MS_DAY = 86_400_000;

/** One computation as the record reads it. */
export interface RecordPoint {
  /** the hour, ms since the epoch */
  ms: number;
  published: boolean;
  /** each tenor's published points, by tenor in days */
  tenorPts: Readonly<Record<string, number>>;
  /** de-vigged probability of each quoted leg, by condition id */
  p: ReadonlyMap<string, number>;
}

export interface RecordWindow {
  tenorDays: number;
  startMs: number;
  endMs: number;
  expectedPts: number;
  realizedPts: number;
}

/** The move of a partition between two computations, in points, rounded to six decimals. */
export function realizedMovePts(p0: ReadonlyMap<string, number>, p1: ReadonlyMap<string, number>): number {
  const ids = new Set([...p0.keys(), ...p1.keys()]);
  const squares = [...ids].map((id) => {
    const d = (p1.get(id) ?? 0) - (p0.get(id) ?? 0);
    return d * d;
  });
  return round6(100 * Math.sqrt(fsum(squares)));
}

/**
 * Every closed window of every tenor over `points` (one series, any order): those whose start and
 * end computations are both in `points` and published. Ordered by tenor, then start.
 */
export function forecastWindows(points: readonly RecordPoint[], tenorsDays: readonly number[]): RecordWindow[] {
  const byMs = new Map(points.map((p) => [p.ms, p]));
  const starts = [...points].filter((p) => p.published).sort((a, b) => a.ms - b.ms);
  const out: RecordWindow[] = [];
  for (const tau of tenorsDays) {
    for (const start of starts) {
      const expected = start.tenorPts[String(tau)];
      const end = byMs.get(start.ms + tau * MS_DAY);
      if (expected === undefined || end === undefined || !end.published) continue;
      out.push({
        tenorDays: tau,
        startMs: start.ms,
        endMs: end.ms,
        expectedPts: expected,
        realizedPts: realizedMovePts(start.p, end.p),
      });
    }
  }
  return out;
}

export interface RecordSummary {
  tenorDays: number;
  /** closed windows (overlapping: one starts every hour) */
  windows: number;
  /** windows that do not overlap: taken from the first, each starting at or after the previous one's end */
  independentWindows: number;
  /** of the windows with an expected move above 0: mean of realized^2 / expected^2 (1 when calibrated) */
  varianceRatio: number | null;
  /** median of realized / expected (below 1 is expected for threshold partitions: most windows move little, a few jump) */
  medianRatio: number | null;
  /** the variance ratio over the independent windows only */
  independentVarianceRatio: number | null;
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const varianceRatioOf = (ws: readonly RecordWindow[]): number | null => {
  const scored = ws.filter((w) => w.expectedPts > 0);
  if (scored.length === 0) return null;
  return fsum(scored.map((w) => (w.realizedPts * w.realizedPts) / (w.expectedPts * w.expectedPts))) / scored.length;
};

/** The record's figures per tenor, from its windows (of one series). */
export function summarizeRecord(windows: readonly RecordWindow[], tenorsDays: readonly number[]): RecordSummary[] {
  return tenorsDays.map((tau) => {
    const ws = windows.filter((w) => w.tenorDays === tau).sort((a, b) => a.startMs - b.startMs);
    const independent: RecordWindow[] = [];
    for (const w of ws)
      if (independent.length === 0 || w.startMs >= (independent[independent.length - 1] as RecordWindow).endMs)
        independent.push(w);
    const scored = ws.filter((w) => w.expectedPts > 0);
    return {
      tenorDays: tau,
      windows: ws.length,
      independentWindows: independent.length,
      varianceRatio: varianceRatioOf(ws),
      medianRatio: median(scored.map((w) => w.realizedPts / w.expectedPts)),
      independentVarianceRatio: varianceRatioOf(independent),
    };
  });
}
