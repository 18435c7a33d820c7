import { describe, expect, test } from "vitest";
import { createMemoryStore, DAY_MS } from "@/lib/ratelimit";
import { runStoreSuite } from "./store-suite";

runStoreSuite("memory", () => {
  const store = createMemoryStore();
  return { store, peer: store };
});

describe("memory store bounds", () => {
  const limits = { minute: 5, day: 10 };
  const T0 = 1_700_000_000_000;

  test("idle logs are swept once their newest entry is older than the day window", async () => {
    const store = createMemoryStore({ sweepEveryMs: 1_000 });
    for (let i = 0; i < 50; i++) await store.consume(`k${i}`, limits, T0);
    expect(store.size()).toBe(50);
    await store.consume("late", limits, T0 + DAY_MS);
    expect(store.size()).toBe(1);
  });

  test("at most maxKeys logs are kept, least recently used dropped first", async () => {
    const store = createMemoryStore({ maxKeys: 3 });
    for (const k of ["a", "b", "c", "d"]) await store.consume(k, { minute: 1, day: 10 }, T0);
    expect(store.size()).toBe(3);
    // "a" was evicted, so its window is empty again; "d" is still full.
    expect((await store.consume("a", { minute: 1, day: 10 }, T0)).allowed).toBe(true);
    expect((await store.consume("d", { minute: 1, day: 10 }, T0)).allowed).toBe(false);
  });

  test("a log never grows past its limit: refused requests are not stored", async () => {
    const store = createMemoryStore();
    for (let i = 0; i < 1_000; i++) await store.consume("busy", limits, T0 + i);
    expect((await store.peek("busy", limits, T0 + 1_000)).remainingMinute).toBe(0);
    expect((await store.peek("busy", limits, T0 + 1_000)).remainingDay).toBe(5);
  });

  test("close forgets every log", async () => {
    const store = createMemoryStore();
    await store.consume("x", limits, T0);
    await store.close?.();
    expect(store.size()).toBe(0);
  });
});

describe("the memory store decides at once", () => {
  test("hitThen returns its outcomes, not a promise, so a keyed request need not wait (lib/api/pipeline.ts)", () => {
    const store = createMemoryStore();
    const T0 = 1_700_000_000_000;
    const first = { key: "addr:1", windows: [{ ms: 60_000, limit: 1 }] };
    const second = { key: "key:1", windows: [{ ms: 60_000, limit: 5 }] };
    const admitted = store.hitThen(first, second, T0);
    expect(admitted).not.toBeInstanceOf(Promise);
    const [a, k] = admitted as Exclude<typeof admitted, Promise<unknown>>;
    expect(a.allowed).toBe(true);
    expect(k?.windows[0]?.count).toBe(1);
    const refused = store.hitThen(first, second, T0 + 1) as Exclude<typeof admitted, Promise<unknown>>;
    expect(refused[0].allowed).toBe(false);
    expect(refused[1]).toBeNull();
  });

  test("an admission recorded out of order still lands in order", async () => {
    const store = createMemoryStore();
    const T0 = 1_700_000_000_000;
    const w = [{ ms: 60_000, limit: 10 }];
    for (const t of [T0 + 30, T0 + 10, T0 + 20]) await store.hit("k", w, t);
    expect(store.entries(T0 + 40).find((e) => e.key === "k")?.times).toEqual([T0 + 10, T0 + 20, T0 + 30]);
  });
});
