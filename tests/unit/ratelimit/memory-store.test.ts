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

describe("least recently used, to within a second", () => {
  test("a log used again within a second keeps its place in the eviction order; after a second it moves", async () => {
    const T0 = 1_700_000_000_000;
    const limits = { minute: 100, day: 100 };
    const store = createMemoryStore({ maxKeys: 2 });
    await store.consume("a", limits, T0);
    await store.consume("b", limits, T0);
    await store.consume("a", limits, T0 + 10); // within the second: not moved
    await store.consume("c", limits, T0 + 20); // evicts the front: a
    expect((await store.peek("a", limits, T0 + 20)).remainingMinute).toBe(100);
    expect((await store.peek("b", limits, T0 + 20)).remainingMinute).toBe(99);
    await store.consume("b", limits, T0 + 1_500); // a second later: moves behind c
    await store.consume("d", limits, T0 + 1_600); // evicts the front: c
    expect((await store.peek("c", limits, T0 + 1_600)).remainingMinute).toBe(100);
    expect((await store.peek("b", limits, T0 + 1_600)).remainingMinute).toBe(98);
  });
});

describe("a long log ages out without shifting it per admission", () => {
  test("counts and resets stay exact while entries age out across many cut-offs, and only live entries are kept", async () => {
    const store = createMemoryStore();
    const window = { ms: 1_000, limit: 1_000_000 };
    const T0 = 1_700_000_000_000;
    // One admission per ms for 10 windows' worth: the log's front ages out on every admission.
    for (let i = 0; i < 10_000; i++) {
      const r = await store.hit("busy", [window], T0 + i);
      expect(r.allowed).toBe(true);
      if (i % 997 === 0 || i > 9_990) {
        // Live: admissions at now - 999 ... now.
        expect(r.windows[0]!.count).toBe(Math.min(i + 1, 1_000));
        expect(r.windows[0]!.resetMs).toBe(T0 + Math.max(0, i - 999) + 1_000);
      }
    }
    const [entry] = store.entries(T0 + 9_999);
    expect(entry!.times).toHaveLength(1_000);
    expect(entry!.times[0]).toBe(T0 + 9_000);
    expect(entry!.times.at(-1)).toBe(T0 + 9_999);
    // A limit lower than the live count refuses; an admission out of order lands in its place.
    expect((await store.hit("busy", [{ ms: 1_000, limit: 1_000 }], T0 + 9_999)).allowed).toBe(false);
    expect((await store.hit("busy", [window], T0 + 9_500)).windows[0]!.count).toBe(1_001);
    const after = store.entries(T0 + 9_999)[0]!.times;
    expect(after).toHaveLength(1_001);
    expect([...after].sort((a, b) => a - b)).toEqual(after);
    // Everything aged out: the log is empty, and swept.
    expect((await store.look("busy", [window], T0 + 20_000)).windows[0]!.count).toBe(0);
    expect(store.entries(T0 + 20_000)).toEqual([]);
  });
});
