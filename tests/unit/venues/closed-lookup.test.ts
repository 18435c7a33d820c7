import { describe, expect, test } from "vitest";
import { closedLookupDue } from "@/lib/venues/closed-lookup";

const closed = new Date("2026-10-01T12:00:00Z");
const after = (hours: number) => new Date(closed.getTime() + hours * 3_600_000);
const dueHours = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((h) => closedLookupDue(closed, after(h)));

describe("a closed market without a resolution is looked up at a slowing cadence, never dropped", () => {
  test("a market never seen closed is looked up every run", () => expect(closedLookupDue(null, after(5))).toBe(true));
  test("every hour for the first 6 hours", () => expect(dueHours(0, 6)).toEqual([0, 1, 2, 3, 4, 5, 6]));
  test("then every 6 hours until 4 days", () =>
    expect(dueHours(7, 96)).toEqual([12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90, 96]));
  test("then once a day, still after a month", () => {
    expect(dueHours(97, 24 * 7)).toEqual([120, 144, 168]);
    expect(dueHours(24 * 40, 24 * 41)).toEqual([960, 984]);
  });
  test("one week of hourly runs asks 30 times instead of 168", () => expect(dueHours(1, 168)).toHaveLength(6 + 15 + 3));
});
