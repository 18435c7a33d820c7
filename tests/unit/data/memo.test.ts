import { afterEach, describe, expect, it, vi } from "vitest";
import { isPromise } from "@/lib/awaitable";
import { clearReadCache, memo, memoNow } from "@/lib/data/memo";

afterEach(() => {
  vi.useRealTimers();
  clearReadCache();
});

describe("memoNow hands out a loaded value without a promise", () => {
  it("a promise while loading, the value itself once loaded, a promise again after the TTL", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24), toFake: ["Date"] });
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const first = memoNow("k", 2_000, load);
    expect(isPromise(first)).toBe(true);
    expect(await first).toEqual({ n: 1 });
    const second = memoNow("k", 2_000, load);
    expect(isPromise(second)).toBe(false);
    expect(second).toBe(await first);
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 2_000);
    const third = memoNow("k", 2_000, load);
    expect(isPromise(third)).toBe(true);
    expect(await third).toEqual({ n: 2 });
    expect(loads).toBe(2);
  });

  it("shares one load with memo, and a failed load is forgotten (the next call loads again)", async () => {
    let loads = 0;
    const failing = async (): Promise<number> => {
      loads += 1;
      throw new Error("database down");
    };
    await expect(memo("f", 60_000, failing)).rejects.toThrow("database down");
    const again = memoNow("f", 60_000, failing);
    expect(isPromise(again)).toBe(true);
    await expect(again).rejects.toThrow("database down");
    expect(loads).toBe(2);
    const ok = memoNow("f", 60_000, async () => 7);
    expect(await ok).toBe(7);
    expect(memoNow("f", 60_000, async () => 8)).toBe(7);
  });
});
