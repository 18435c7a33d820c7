import { describe, expect, it } from "vitest";
import { packLevels, unpackLevels } from "@/lib/site/level-series";

const parse = (t: string) => Date.parse(t);

describe("index levels packed for the page come back exactly as the API wrote them", () => {
  it.each([
    [[]],
    [[{ t: "2026-11-21T13:00:00.000000Z", indexLevel: "100.00000000", stale: false, revision: 1 }]],
    [
      [
        { t: "2026-11-21T00:00:00.000000Z", indexLevel: "100.00000000", stale: false, revision: 1 },
        { t: "2026-11-21T01:00:00.000000Z", indexLevel: "101.12345678", stale: true, revision: 1 },
        { t: "2026-11-21T02:00:00.000000Z", indexLevel: "99.87654321", stale: false, revision: 3 },
        { t: "2026-11-22T00:00:00.000000Z", indexLevel: "1234567.00000001", stale: false, revision: 1 },
      ],
    ],
  ])("%#", (points) => {
    const back = unpackLevels(packLevels(points, parse)).map(({ x, ...p }) => {
      expect(x).toBe(parse(p.t));
      return p;
    });
    expect(back).toEqual(points);
  });
});
