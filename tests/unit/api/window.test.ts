import { describe, expect, it } from "vitest";
import { HISTORY_MAX_DAYS, InvalidWindowError, resolveWindow } from "@/lib/data/window";

const NOW = new Date("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const FLOOR = new Date(NOW.getTime() - HISTORY_MAX_DAYS * DAY);
const d = (s: string) => new Date(s);

describe("resolveWindow", () => {
  it.each<[string, Date | undefined, Date | undefined, { start: Date; end: Date; clamped: boolean; empty: boolean }]>([
    [
      "no parameters: the trailing window",
      undefined,
      undefined,
      { start: FLOOR, end: NOW, clamped: false, empty: false },
    ],
    [
      "a start inside the window is kept",
      d("2026-11-01T00:00:00Z"),
      undefined,
      { start: d("2026-11-01T00:00:00Z"), end: NOW, clamped: false, empty: false },
    ],
    [
      "an older start is clamped to the floor",
      d("2026-01-01T00:00:00Z"),
      undefined,
      { start: FLOOR, end: NOW, clamped: true, empty: false },
    ],
    [
      "the year 1 is clamped, not rejected",
      d("0001-01-01T00:00:00Z"),
      undefined,
      { start: FLOOR, end: NOW, clamped: true, empty: false },
    ],
    [
      "a future end is clamped to now",
      d("2026-11-10T00:00:00Z"),
      d("2030-01-01T00:00:00Z"),
      { start: d("2026-11-10T00:00:00Z"), end: NOW, clamped: false, empty: false },
    ],
    [
      "a window entirely before the floor is empty and clamped",
      d("2026-01-01T00:00:00Z"),
      d("2026-02-01T00:00:00Z"),
      { start: FLOOR, end: d("2026-02-01T00:00:00Z"), clamped: true, empty: true },
    ],
    [
      "a start exactly at the floor is not clamped",
      FLOOR,
      undefined,
      { start: FLOOR, end: NOW, clamped: false, empty: false },
    ],
  ])("%s", (_label, start, end, expected) => {
    expect(resolveWindow(NOW, start, end)).toEqual(expected);
  });

  it.each<[string, Date, Date | undefined, Date]>([
    ["start equal to end", d("2026-11-10T00:00:00Z"), d("2026-11-10T00:00:00Z"), d("2026-11-10T00:00:00Z")],
    ["start after end", d("2026-11-11T00:00:00Z"), d("2026-11-10T00:00:00Z"), d("2026-11-10T00:00:00Z")],
    ["a future start: reported against now", d("2027-01-01T00:00:00Z"), undefined, NOW],
    [
      "a future start and a later future end: the end is now",
      d("2027-01-01T00:00:00Z"),
      d("2028-01-01T00:00:00Z"),
      NOW,
    ],
  ])("%s throws the domain error with both parsed values", (_label, start, end, reportedEnd) => {
    let caught: unknown;
    try {
      resolveWindow(NOW, start, end);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidWindowError);
    expect((caught as InvalidWindowError).start).toEqual(start);
    expect((caught as InvalidWindowError).end).toEqual(reportedEnd);
  });
});
