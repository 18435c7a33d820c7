import { iso6, type PackedTimes, packTimes, unpackTimes } from "./packed-times";

/**
 * A volatility history as the page sends it to the browser: columns instead of objects and
 * times as differences, so a 90-day hourly history costs tens of kilobytes in the page, not
 * the megabyte its point objects would. Numbers are the API's own (JSON keeps them exact).
 */
export interface PackedVolatilitySeries {
  times: PackedTimes;
  headline: number[];
  lo: number[];
  hi: number[];
  cf: Array<number | null>;
  /** index into `statuses` */
  status: number[];
  statuses: string[];
  /** failing gate names, comma-joined; "" for none */
  gates: string[];
}

export interface VolatilityPointIn {
  t: string;
  headlinePts: number;
  bandLoPts: number;
  bandHiPts: number;
  cfHeadlinePts: number | null;
  status: string;
  gateNames: readonly string[];
}

export interface VolatilityPointOut extends Omit<VolatilityPointIn, "gateNames"> {
  x: number;
  gates: string;
}

export function packVolatility(
  points: readonly VolatilityPointIn[],
  parse: (t: string) => number,
): PackedVolatilitySeries {
  const statuses: string[] = [];
  const statusIndex = (s: string) => {
    const i = statuses.indexOf(s);
    if (i >= 0) return i;
    statuses.push(s);
    return statuses.length - 1;
  };
  return {
    times: packTimes(points.map((p) => parse(p.t))),
    headline: points.map((p) => p.headlinePts),
    lo: points.map((p) => p.bandLoPts),
    hi: points.map((p) => p.bandHiPts),
    cf: points.map((p) => p.cfHeadlinePts),
    status: points.map((p) => statusIndex(p.status)),
    statuses,
    gates: points.map((p) => p.gateNames.join(", ")),
  };
}

export function unpackVolatility(s: PackedVolatilitySeries): VolatilityPointOut[] {
  const xs = unpackTimes(s.times);
  return xs.map((x, i) => ({
    t: iso6(x),
    x,
    headlinePts: s.headline[i]!,
    bandLoPts: s.lo[i]!,
    bandHiPts: s.hi[i]!,
    cfHeadlinePts: s.cf[i] ?? null,
    status: s.statuses[s.status[i]!] ?? "",
    gates: s.gates[i] ?? "",
  }));
}

/** Points to six decimals, as the page shows exact values. */
export const pts6 = (v: number) => v.toFixed(6);
