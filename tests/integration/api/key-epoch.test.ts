import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { afterAll, describe, expect, inject, it, vi } from "vitest";
import { createKeyCache, type ResolvedKey } from "@/lib/keys/key-cache";
import { deleteRedisPrefix } from "../support/redis";

// Rule (lib/keys/key-cache.ts): the keyed requests of one event-loop turn share one read of the
// revocation epoch, and no read outlives its turn, so a revocation another instance completed
// before a request arrived is seen by that request.

const url = inject("redisUrl");
const prefix = `${inject("redisPrefix")}epoch-${randomUUID()}:`;
const connections: Redis[] = [];

afterAll(async () => {
  for (const c of connections) c.disconnect();
  await deleteRedisPrefix(url, prefix);
});

/** One instance's key cache on a connection of its own to the run's Redis. */
function instance() {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  connections.push(redis);
  const gets = vi.spyOn(redis, "get");
  const cache = createKeyCache({ redis: () => redis, ready: async () => redis, epochKey: `${prefix}keys:epoch`, onReconnect: () => undefined });
  return { cache, gets };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const KEY: ResolvedKey = { id: "k1", userId: "u1", prefix: "pmb_live_abcd", limitMinute: null, limitDay: null };

describe("the revocation epoch", () => {
  it("is read once for all the keyed requests of one event-loop turn, and again in the next turn", async () => {
    const { cache, gets } = instance();
    const reads = Array.from({ length: 20 }, () => cache.readEpoch());
    expect(new Set(reads).size).toBe(1);
    await Promise.all(reads);
    expect(gets).toHaveBeenCalledTimes(1);
    await nextTurn();
    const later = cache.readEpoch();
    expect(reads).not.toContain(later);
    await later;
    expect(gets).toHaveBeenCalledTimes(2);
  });

  it("moved by another instance before a turn is seen in that turn: the cached key is dropped", async () => {
    const a = instance();
    const b = instance();
    await a.cache.syncEpoch();
    a.cache.remember("hash-1", KEY);
    expect(a.cache.peek("hash-1")).toEqual(KEY);
    // a read of an earlier turn, then the revocation elsewhere: the next turn's read is new and sees it
    const earlier = a.cache.readEpoch();
    await earlier;
    expect(await b.cache.invalidate()).toBe("told");
    const read = a.cache.readEpoch();
    expect(read).not.toBe(earlier);
    a.cache.applyEpoch(await read);
    expect(a.cache.peek("hash-1")).toBeNull();
    expect(await a.cache.cached("hash-1")).toBeUndefined();
  });
});
