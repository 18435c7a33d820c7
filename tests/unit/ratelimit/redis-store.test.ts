import type Redis from "ioredis";
import { describe, expect, test, vi } from "vitest";
import { createRedisStore } from "@/lib/ratelimit";

// A stand-in connection: the Lua itself runs against real Redis in tests/integration/ratelimit.
function fakeRedis(evalsha: () => Promise<unknown>, evalScript: () => Promise<unknown>) {
  return { evalsha: vi.fn(evalsha), eval: vi.fn(evalScript) };
}
const asRedis = (fake: ReturnType<typeof fakeRedis>) => fake as unknown as Redis;

const NOW = 1_700_000_000_250;
const reply = [NOW, 1, 1, NOW + 60_000, 1, NOW + 86_400_000];

describe("redis store client side", () => {
  test("falls back to EVAL when the server has not cached the script", async () => {
    const fake = fakeRedis(
      () => Promise.reject(new Error("NOSCRIPT No matching script. Please use EVAL.")),
      () => Promise.resolve(reply),
    );
    const d = await createRedisStore(asRedis(fake)).consume("k", { minute: 60, day: 2000 }, NOW);
    expect(d).toMatchObject({ allowed: true, remainingMinute: 59, remainingDay: 1999 });
    expect(fake.eval).toHaveBeenCalledTimes(1);
  });

  test("passes the prefixed key, the caller's clock only when asked, and a unique member", async () => {
    const fake = fakeRedis(
      () => Promise.resolve(reply),
      () => Promise.resolve(reply),
    );
    await createRedisStore(asRedis(fake), { prefix: "p:", clock: "caller" }).consume(
      "k",
      { minute: 1, day: 2 },
      NOW,
    );
    await createRedisStore(asRedis(fake), { prefix: "p:" }).consume(
      "k",
      { minute: 1, day: 2 },
      NOW,
    );
    const [callerArgs, serverArgs] = fake.evalsha.mock.calls.map((c: unknown[]) => c);
    expect(callerArgs?.slice(1, 5)).toEqual([1, "p:key:k", "h", String(NOW)]);
    expect(serverArgs?.[4]).toBe("");
    expect(callerArgs?.slice(6)).toEqual(["2", "60000", "1", "86400000", "2"]);
    expect(callerArgs?.[5]).not.toBe(serverArgs?.[5]);
  });

  test("the calls of one event-loop turn go as one script run, each answered from its part of the reply", async () => {
    const refusedFirst = [NOW, 0, 1, NOW + 60_000];
    let runs = 0;
    const fake = fakeRedis(
      () => Promise.resolve(runs++ === 0 ? [...reply, ...refusedFirst, -1, ...reply] : reply),
      () => Promise.resolve([]),
    );
    const store = createRedisStore(asRedis(fake), { prefix: "p:" });
    const address = { key: "addr:a", windows: [{ ms: 60_000, limit: 1 }] };
    const key = { key: "key:k", windows: [{ ms: 60_000, limit: 60 }] };
    const [consumed, chained, peeked] = await Promise.all([
      store.consume("k", { minute: 60, day: 2000 }, NOW),
      store.hitThen(address, key, NOW),
      store.peek("k", { minute: 60, day: 2000 }, NOW),
    ]);
    expect(fake.evalsha).toHaveBeenCalledTimes(1);
    const args = fake.evalsha.mock.calls[0] as unknown[];
    expect(args.slice(1, 6)).toEqual([4, "p:key:k", "p:addr:a", "p:key:k", "p:key:k"]);
    expect(args.filter((a) => a === "h" || a === "c" || a === "l")).toEqual(["h", "c", "l"]);
    expect(consumed).toMatchObject({ allowed: true, remainingMinute: 59 });
    expect(chained).toEqual([{ nowMs: NOW, allowed: false, windows: [{ count: 1, resetMs: NOW + 60_000 }] }, null]);
    expect(peeked).toMatchObject({ allowed: true, remainingDay: 1999 });
    // The next turn is a run of its own.
    await store.consume("k", { minute: 60, day: 2000 }, NOW);
    expect(fake.evalsha).toHaveBeenCalledTimes(2);
  });

  test("a failed run fails every call in it, and the next turn starts afresh", async () => {
    let calls = 0;
    const fake = fakeRedis(
      () => (calls++ === 0 ? Promise.reject(new Error("Command timed out")) : Promise.resolve(reply)),
      () => Promise.resolve(reply),
    );
    const store = createRedisStore(asRedis(fake));
    const both = await Promise.allSettled([store.consume("a", { minute: 1, day: 2 }, NOW), store.consume("b", { minute: 1, day: 2 }, NOW)]);
    expect(both.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    await expect(store.consume("a", { minute: 1, day: 2 }, NOW)).resolves.toMatchObject({ allowed: true });
  });

  test("other Redis errors propagate", async () => {
    const fake = fakeRedis(
      () => Promise.reject(new Error("LOADING")),
      () => Promise.resolve(reply),
    );
    await expect(
      createRedisStore(asRedis(fake)).consume("k", { minute: 1, day: 1 }, NOW),
    ).rejects.toThrow("LOADING");
    expect(fake.eval).not.toHaveBeenCalled();
  });

  test("a malformed reply is an error, not a silent admit", async () => {
    const fake = fakeRedis(
      () => Promise.resolve([NOW, 1]),
      () => Promise.resolve([]),
    );
    await expect(
      createRedisStore(asRedis(fake)).consume("k", { minute: 1, day: 1 }, NOW),
    ).rejects.toThrow(/unexpected reply/);
  });
});
