import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRedisStore, DAY_MS, MINUTE_MS } from "@/lib/ratelimit";
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
    const stores = [createRedisStore(a, { prefix: PREFIX }), createRedisStore(b, { prefix: PREFIX })];
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) => stores[i % 2]!.consume(key, { minute: 10, day: 100 }, Date.now())),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    // Every refusal from either instance reports the same reset: one clock, one log.
    expect(new Set(decisions.filter((d) => !d.allowed).map((d) => d.resetMinute)).size).toBe(1);
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

  test("300 concurrent calls on one key over two instances admit exactly 10", async () => {
    const key = `many-${randomUUID()}`;
    const stores = [createRedisStore(a, { prefix: PREFIX }), createRedisStore(b, { prefix: PREFIX })];
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => stores[i % 2]!.consume(key, { minute: 10, day: 100 }, Date.now())),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(await a.zcard(`${PREFIX}key:${key}`)).toBe(10);
  });
});
