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
    await createRedisStore(asRedis(fake), { prefix: "p:", clock: "caller" }).consume("k", { minute: 1, day: 2 }, NOW);
    await createRedisStore(asRedis(fake), { prefix: "p:" }).consume("k", { minute: 1, day: 2 }, NOW);
    const [callerArgs, serverArgs] = fake.evalsha.mock.calls.map((c: unknown[]) => c);
    expect(callerArgs?.slice(1, 5)).toEqual([1, "p:key:k", "h", String(NOW)]);
    expect(serverArgs?.[4]).toBe("");
    expect(callerArgs?.slice(6)).toEqual(["2", "60000", "1", "86400000", "2"]);
    expect(callerArgs?.[5]).not.toBe(serverArgs?.[5]);
  });

  test("a failed run fails its call, and the next call starts afresh", async () => {
    let calls = 0;
    const fake = fakeRedis(
      () => (calls++ === 0 ? Promise.reject(new Error("Command timed out")) : Promise.resolve(reply)),
      () => Promise.resolve(reply),
    );
    const store = createRedisStore(asRedis(fake));
    await expect(store.consume("a", { minute: 1, day: 2 }, NOW)).rejects.toThrow("Command timed out");
    await expect(store.consume("a", { minute: 1, day: 2 }, NOW)).resolves.toMatchObject({ allowed: true });
  });

  test("other Redis errors propagate", async () => {
    const fake = fakeRedis(
      () => Promise.reject(new Error("LOADING")),
      () => Promise.resolve(reply),
    );
    await expect(createRedisStore(asRedis(fake)).consume("k", { minute: 1, day: 1 }, NOW)).rejects.toThrow("LOADING");
    expect(fake.eval).not.toHaveBeenCalled();
  });

  test("a malformed reply is an error, not a silent admit", async () => {
    const fake = fakeRedis(
      () => Promise.resolve([NOW, 1]),
      () => Promise.resolve([]),
    );
    await expect(createRedisStore(asRedis(fake)).consume("k", { minute: 1, day: 1 }, NOW)).rejects.toThrow(
      /unexpected reply/,
    );
  });
});
