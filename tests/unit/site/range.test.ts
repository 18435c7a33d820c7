import { describe, expect, test } from "vitest";
import { chartHref, parseIntervalParam, parseRange, rangeRequest } from "@/lib/site/range";
import { isoSecondsZ } from "@/lib/site/time";

describe("range and interval parameters", () => {
  test.each([
    [undefined, "30d"],
    ["7d", "7d"],
    ["90D", "90d"],
    [["7d", "90d"], "7d"],
    ["365d", "30d"],
    ["", "30d"],
  ] as const)("range %j -> %s", (raw, expected) => {
    expect(parseRange(raw as string | string[] | undefined)).toBe(expected);
  });

  test.each([
    [undefined, "1d"],
    ["1h", "1h"],
    ["1H", "1h"],
    ["5m", "1d"],
  ] as const)("interval %j -> %s", (raw, expected) => {
    expect(parseIntervalParam(raw)).toBe(expected);
  });

  test("links keep the other control", () => {
    expect(chartHref("/indices/PMX-ELEC", { range: "90d", interval: "1h" })).toBe(
      "/indices/PMX-ELEC?range=90d&interval=1h",
    );
    expect(chartHref("/volatility/fed-decision", { range: "7d" })).toBe("/volatility/fed-decision?range=7d");
  });
});

describe("range -> window", () => {
  test.each([
    ["2026-11-22T00:54:51.789Z", "7d", "2026-11-15T01:00:00Z", "2026-11-22T00:54:51Z"],
    ["2026-11-22T00:54:51.789Z", "30d", "2026-10-23T01:00:00Z", "2026-11-22T00:54:51Z"],
    ["2026-11-22T00:54:51.789Z", "90d", "2026-08-24T01:00:00Z", "2026-11-22T00:54:51Z"],
    // on the hour, the start is not moved
    ["2026-11-22T13:00:00.000Z", "7d", "2026-11-15T13:00:00Z", "2026-11-22T13:00:00Z"],
  ] as const)("at %s, %s asks for %s to %s", (now, range, start, end) => {
    const w = rangeRequest(new Date(now), range);
    expect(isoSecondsZ(w.start)).toBe(start);
    expect(isoSecondsZ(w.end)).toBe(end);
  });

  test("the start never predates the API's 90-day floor, so the API does not clamp it", () => {
    const now = new Date("2026-11-22T00:54:51.789Z");
    const floor = now.getTime() - 90 * 86_400_000;
    expect(rangeRequest(now, "90d").start.getTime()).toBeGreaterThanOrEqual(floor);
  });
});
