import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createMemoryStore, createRedisStore, DAY_MS, MINUTE_MS, type RateLimitStore } from "@/lib/ratelimit";
import { runStoreSuite } from "../../unit/ratelimit/store-suite";
import { deleteRedisPrefix } from "../support/redis";
import { testRedisUrl } from "../../support/test-env";

// Two connections stand in for two app instances; every key of this run lives under PREFIX.
const url = testRedisUrl;
const PREFIX = `rl-test:${randomUUID()}:`;
const connect = () => new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
let a: Redis;
let b: Redis;

beforeAll(async () => {
  a = connect();
  b = connect();
  await Promise.all([a.ping(), b.ping()]);
});

afterAll(async () => {
  await deleteRedisPrefix(url, PREFIX);
  await Promise.all([a.quit(), b.quit()]);
});

runStoreSuite("redis (caller clock)", () => ({
  store: createRedisStore(a, { prefix: PREFIX, clock: "caller" }),
  peer: createRedisStore(b, { prefix: PREFIX, clock: "caller" }),
}));

describe("redis store with the server clock", () => {
  test("decides on Redis TIME, ignoring the caller's nowMs, and headers agree", async () => {
    const store = createRedisStore(a, { prefix: PREFIX });
    const before = Date.now();
    const limits = { minute: 1, day: 5 };
    const first = await store.consume("server-clock", limits, 0);
    const refused = await store.consume("server-clock", limits, 0);
    const after = Date.now();
    expect(first.resetMinute).toBeGreaterThanOrEqual(Math.ceil((before + MINUTE_MS) / 1000) - 1);
    expect(first.resetMinute).toBeLessThanOrEqual(Math.ceil((after + MINUTE_MS) / 1000) + 1);
    expect(refused).toMatchObject({
      allowed: false,
      limited: "minute",
      resetMinute: first.resetMinute,
    });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(58);
    expect(refused.retryAfter).toBeLessThanOrEqual(61);
  });

  test("30 concurrent calls over two connections admit exactly 10", async () => {
    const key = `shared-${randomUUID()}`;
    const stores = [
      createRedisStore(a, { prefix: PREFIX }),
      createRedisStore(b, { prefix: PREFIX }),
    ];
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        stores[i % 2]!.consume(key, { minute: 10, day: 100 }, Date.now()),
      ),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    // Every refusal from either instance reports the same reset: one clock, one log.
    expect(new Set(decisions.filter((d) => !d.allowed).map((d) => d.resetMinute)).size).toBe(1);
  });

  test("hitThen on a refused first log leaves the second untouched", async () => {
    const store = createRedisStore(a, { prefix: PREFIX });
    const first = { key: `addr-${randomUUID()}`, windows: [{ ms: MINUTE_MS, limit: 1 }] };
    const second = { key: `key-${randomUUID()}`, windows: [{ ms: MINUTE_MS, limit: 5 }] };
    const [admitted, spent] = await store.hitThen(first, second, Date.now());
    expect(admitted.allowed).toBe(true);
    expect(spent).toMatchObject({ allowed: true });
    const [refused, untouched] = await store.hitThen(first, second, Date.now());
    expect(refused.allowed).toBe(false);
    expect(untouched).toBeNull();
    expect((await store.look(second.key, second.windows, Date.now())).windows[0]!.count).toBe(1);
  });

  test("log members are short and unique per request (the admission ms, a process tag, a counter)", async () => {
    const store = createRedisStore(a, { prefix: PREFIX });
    const key = `members-${randomUUID()}`;
    const now = Date.now();
    for (let i = 0; i < 3; i++) await store.hit(key, [{ ms: MINUTE_MS, limit: 10 }], now);
    const members = await a.zrange(`${PREFIX}${key}`, "0", "-1");
    expect(new Set(members).size).toBe(3);
    for (const m of members) expect(m.length).toBeLessThanOrEqual(40);
  });

  test("a log expires after the longest window and refusals store nothing", async () => {
    const store = createRedisStore(a, { prefix: PREFIX });
    const key = `ttl-${randomUUID()}`;
    await store.consume(key, { minute: 1, day: 5 }, Date.now());
    await store.consume(key, { minute: 1, day: 5 }, Date.now());
    const redisKey = `${PREFIX}key:${key}`;
    expect(await a.zcard(redisKey)).toBe(1);
    const ttl = await a.pttl(redisKey);
    expect(ttl).toBeGreaterThan(DAY_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(DAY_MS);
  });

  test("peek on an unknown key creates nothing", async () => {
    const store = createRedisStore(a, { prefix: PREFIX });
    const key = `peek-${randomUUID()}`;
    expect((await store.peek(key, { minute: 1, day: 1 }, Date.now())).allowed).toBe(true);
    expect(await a.exists(`${PREFIX}key:${key}`)).toBe(0);
  });

  test("the calls of one event-loop turn are one script run, deciding each exactly as one run per call would", async () => {
    const store = createRedisStore(a, { prefix: PREFIX, clock: "caller" });
    const reference = createMemoryStore();
    const [k1, k2, k3, addr] = [`batch-${randomUUID()}`, `batch-${randomUUID()}`, `batch-${randomUUID()}`, `addr-${randomUUID()}`];
    const T = 1_700_000_000_250;
    const limits = { minute: 3, day: 5 };
    // Mixed calls on shared logs, some a minute apart (earlier ones age out), in one turn.
    const calls = (s: RateLimitStore) => [
      ...Array.from({ length: 4 }, (_, i) => () => s.consume(k1, limits, T + i)),
      () => s.peek(k1, limits, T + 10),
      () => s.hitThen({ key: addr, windows: [{ ms: MINUTE_MS, limit: 2 }] }, { key: `key:${k2}`, windows: [{ ms: MINUTE_MS, limit: 1 }] }, T + 20),
      () => s.hitThen({ key: addr, windows: [{ ms: MINUTE_MS, limit: 2 }] }, { key: `key:${k2}`, windows: [{ ms: MINUTE_MS, limit: 1 }] }, T + 30),
      () => s.hitThen({ key: addr, windows: [{ ms: MINUTE_MS, limit: 2 }] }, { key: `key:${k2}`, windows: [{ ms: MINUTE_MS, limit: 1 }] }, T + 40),
      ...Array.from({ length: 3 }, (_, i) => () => s.consume(k1, limits, T + MINUTE_MS + i)),
      () => s.consume(k2, limits, T + 50),
      // Several calls on one log at one instant (what the script remembers between them), then
      // one from an earlier instant and one from a later one.
      ...Array.from({ length: 4 }, () => () => s.consume(k3, limits, T + 100)),
      () => s.peek(k3, limits, T + 100),
      () => s.consume(k3, { minute: 9, day: 9 }, T + 90),
      () => s.consume(k3, { minute: 9, day: 9 }, T + MINUTE_MS + 95),
      () => s.peek(k3, limits, T + MINUTE_MS + 95),
    ];
    const expected = [];
    for (const call of calls(reference)) expected.push(await call());
    const evalsha = vi.spyOn(a, "evalsha");
    try {
      const got = await Promise.all(calls(store).map((call) => call()));
      expect(evalsha).toHaveBeenCalledTimes(1);
      expect(got).toEqual(expected);
      expect((got[3] as { allowed: boolean }).allowed).toBe(false);
    } finally {
      evalsha.mockRestore();
    }
  });

  test("300 concurrent calls on one key over two instances, batched per turn, admit exactly 10", async () => {
    const key = `many-${randomUUID()}`;
    const stores = [createRedisStore(a, { prefix: PREFIX }), createRedisStore(b, { prefix: PREFIX })];
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => stores[i % 2]!.consume(key, { minute: 10, day: 100 }, Date.now())));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(await a.zcard(`${PREFIX}key:${key}`)).toBe(10);
  });
});
