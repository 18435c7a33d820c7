import { describe, expect, it } from "vitest";
import { andThen, isPromise } from "@/lib/plumbing/awaitable";
import { iso6, iso6Now } from "@/lib/time-format";

describe("andThen answers now when the value is here", () => {
  it("a plain value gives a plain result, in the same call", () => {
    const out = andThen(2, (v) => v * 3);
    expect(isPromise(out)).toBe(false);
    expect(out).toBe(6);
  });

  it("a promise gives a promise of the result", async () => {
    const out = andThen(Promise.resolve(2), (v) => v * 3);
    expect(isPromise(out)).toBe(true);
    await expect(out).resolves.toBe(6);
  });

  it("a throw in f is synchronous for a plain value and a rejection for a promise", async () => {
    const fail = (): number => {
      throw new Error("no");
    };
    expect(() => andThen(1, fail)).toThrow("no");
    await expect(andThen(Promise.resolve(1), fail)).rejects.toThrow("no");
  });

  it("a rejection passes through untouched", async () => {
    let called = false;
    await expect(andThen(Promise.reject(new Error("down")), () => (called = true))).rejects.toThrow("down");
    expect(called).toBe(false);
  });

  it("isPromise tells thenables from values, null and undefined included", () => {
    expect(isPromise(null)).toBe(false);
    expect(isPromise(undefined)).toBe(false);
    expect(isPromise({ then: 1 })).toBe(false);
    expect(isPromise(Promise.resolve())).toBe(true);
  });
});

describe("iso6Now", () => {
  it("is iso6 of the instant, reused within one millisecond and new for the next", () => {
    const ms = Date.UTC(2026, 10, 24, 7, 0, 0, 123);
    expect(iso6Now(ms)).toBe(iso6(new Date(ms)));
    expect(iso6Now(ms)).toBe("2026-11-24T07:00:00.123000Z");
    expect(iso6Now(ms + 1)).toBe("2026-11-24T07:00:00.124000Z");
    expect(iso6Now(ms)).toBe("2026-11-24T07:00:00.123000Z");
  });
});
