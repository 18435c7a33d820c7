import { iso6, type PackedTimes, packTimes, unpackTimes } from "./packed-times";

/**
 * An index history as the page sends it to the browser (the chart and the levels table share
 * it): times as differences and levels as the API's decimal strings, in columns, with the rare
 * stale flags and revisions as exceptions. A 90-day hourly history is about 50 KB, not 130.
 */
export interface PackedLevels {
  times: PackedTimes;
  levels: string[];
  /** indexes of stale levels */
  stale: number[];
  /** the revision most levels have, and [index, revision] for the others */
  revision: number;
  revisions: Array<[number, number]>;
}

export interface LevelPointIn {
  t: string;
  indexLevel: string;
  stale: boolean;
  revision: number;
}

export function packLevels(points: readonly LevelPointIn[], parse: (t: string) => number): PackedLevels {
  const counts = new Map<number, number>();
  for (const p of points) counts.set(p.revision, (counts.get(p.revision) ?? 0) + 1);
  const revision = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  return {
    times: packTimes(points.map((p) => parse(p.t))),
    levels: points.map((p) => p.indexLevel),
    stale: points.flatMap((p, i) => (p.stale ? [i] : [])),
    revision,
    revisions: points.flatMap((p, i): Array<[number, number]> => (p.revision === revision ? [] : [[i, p.revision]])),
  };
}

export function unpackLevels(s: PackedLevels): Array<LevelPointIn & { x: number }> {
  const stale = new Set(s.stale);
  const revisions = new Map(s.revisions);
  return unpackTimes(s.times).map((x, i) => ({
    t: iso6(x),
    x,
    indexLevel: s.levels[i]!,
    stale: stale.has(i),
    revision: revisions.get(i) ?? s.revision,
  }));
}
