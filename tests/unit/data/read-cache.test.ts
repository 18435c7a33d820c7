import { afterEach, describe, expect, it, vi } from "vitest";
import { createReadCache } from "@/lib/data/read-cache";

afterEach(() => {
  vi.useRealTimers();
});

describe("peek hands out a loaded value without a promise, and never loads", () => {
  it("nothing while loading, the value once loaded, nothing again after the TTL", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24), toFake: ["Date"] });
    const cache = createReadCache();
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(cache.peek("k", 2_000)).toBeUndefined();
    const first = cache.memo("k", 2_000, load);
    expect(cache.peek("k", 2_000)).toBeUndefined();
    expect(await first).toEqual({ n: 1 });
    expect(cache.peek("k", 2_000)?.value).toBe(await first);
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 2_000);
    expect(cache.peek("k", 2_000)).toBeUndefined();
    expect(await cache.memo("k", 2_000, load)).toEqual({ n: 2 });
    expect(loads).toBe(2);
  });

  it("a loaded null is a value (an unknown ticker), not a miss", async () => {
    const cache = createReadCache();
    await cache.memo("none", 60_000, async () => null);
    expect(cache.peek("none", 60_000)).toEqual({ value: null });
  });

  it("a failed load is forgotten (the next call loads again)", async () => {
    const cache = createReadCache();
    let loads = 0;
    const failing = async (): Promise<number> => {
      loads += 1;
      throw new Error("database down");
    };
    await expect(cache.memo("f", 60_000, failing)).rejects.toThrow("database down");
    expect(cache.peek("f", 60_000)).toBeUndefined();
    await expect(cache.memo("f", 60_000, failing)).rejects.toThrow("database down");
    expect(loads).toBe(2);
    expect(await cache.memo("f", 60_000, async () => 7)).toBe(7);
    expect(cache.peek("f", 60_000)?.value).toBe(7);
  });
});

describe("each root has a cache of its own", () => {
  it("clearing one cache leaves another's values", async () => {
    const a = createReadCache();
    const b = createReadCache();
    await a.memo("k", 60_000, async () => "a");
    await b.memo("k", 60_000, async () => "b");
    a.clear();
    expect(a.peek("k", 60_000)).toBeUndefined();
    expect(b.peek("k", 60_000)?.value).toBe("b");
  });
});

describe("versioned loads again only when the version moved", () => {
  it("keeps the same object across TTLs while the version holds", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24), toFake: ["Date"] });
    const cache = createReadCache();
    let version = "1";
    let loads = 0;
    const get = () => cache.versioned("w", 1_000, async () => version, async () => ({ n: ++loads }));
    const first = await get();
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 1_000);
    expect(await get()).toBe(first);
    version = "2";
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 2_000);
    expect(await get()).toEqual({ n: 2 });
  });
});
