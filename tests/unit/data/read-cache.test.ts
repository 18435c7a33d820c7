import { afterEach, describe, expect, it, vi } from "vitest";
import { createReadCache } from "@/lib/data/read-cache";

afterEach(() => {
  vi.useRealTimers();
});

describe("memo serves a loaded value for its TTL, and loads once for concurrent callers", () => {
  it("one load while fresh, a new one after the TTL", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24), toFake: ["Date"] });
    const cache = createReadCache();
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const [first, same] = await Promise.all([cache.memo("k", 2_000, load), cache.memo("k", 2_000, load)]);
    expect(same).toBe(first);
    expect(await cache.memo("k", 2_000, load)).toBe(first);
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 2_000);
    expect(await cache.memo("k", 2_000, load)).toEqual({ n: 2 });
    expect(loads).toBe(2);
  });

  it("a failed load is forgotten (the next call loads again)", async () => {
    const cache = createReadCache();
    let loads = 0;
    const failing = async (): Promise<number> => {
      loads += 1;
      throw new Error("database down");
    };
    await expect(cache.memo("f", 60_000, failing)).rejects.toThrow("database down");
    await expect(cache.memo("f", 60_000, failing)).rejects.toThrow("database down");
    expect(loads).toBe(2);
    expect(await cache.memo("f", 60_000, async () => 7)).toBe(7);
    expect(await cache.memo("f", 60_000, async () => 8)).toBe(7);
  });
});

describe("each root has a cache of its own", () => {
  it("clearing one cache leaves another's values", async () => {
    const a = createReadCache();
    const b = createReadCache();
    await a.memo("k", 60_000, async () => "a");
    await b.memo("k", 60_000, async () => "b");
    a.clear();
    expect(await a.memo("k", 60_000, async () => "a2")).toBe("a2");
    expect(await b.memo("k", 60_000, async () => "b2")).toBe("b");
  });
});

describe("versioned loads again only when the version moved", () => {
  it("keeps the same object across TTLs while the version holds", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24), toFake: ["Date"] });
    const cache = createReadCache();
    let version = "1";
    let loads = 0;
    const get = () =>
      cache.versioned(
        "w",
        1_000,
        async () => version,
        async () => ({ n: ++loads }),
      );
    const first = await get();
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 1_000);
    expect(await get()).toBe(first);
    version = "2";
    vi.setSystemTime(Date.UTC(2026, 10, 24) + 2_000);
    expect(await get()).toEqual({ n: 2 });
  });
});
