import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { parseConfig } from "@/lib/config";
import { DAY_MS, MINUTE_MS, throttle, type LimitDecision, type RateLimitStore } from "@/lib/ratelimit";

/** A store under test and a second handle on the same backend (another instance/connection). */
export interface StoreHandles {
  store: RateLimitStore;
  peer: RateLimitStore;
}

// An instant with a fractional second, so rounding mistakes show.
const T0 = 1_700_000_000_250;
const sec = (ms: number) => Math.floor(ms / 1000);

/** Retry-After agrees to the second with the reset header of the window that refused. */
function expectHeadersAgree(d: LimitDecision, nowMs: number): void {
  expect(d.allowed).toBe(false);
  const reset = d.limited === "day" ? d.resetDay : d.resetMinute;
  expect(d.retryAfter).toBe(reset - sec(nowMs));
  expect(d.retryAfter).toBeGreaterThanOrEqual(1);
}

async function consumeN(
  store: RateLimitStore,
  key: string,
  n: number,
  limits: { minute: number; day: number },
  nowMs: number,
) {
  const out: LimitDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await store.consume(key, limits, nowMs));
  return out;
}

/** The sliding-log contract, run against every store. */
export function runStoreSuite(name: string, open: () => Promise<StoreHandles> | StoreHandles): void {
  describe(`sliding-log store contract: ${name}`, () => {
    const key = () => `test-${randomUUID()}`;

    test("admits up to the minute limit, then refuses with rate_limited", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 10, day: 1000 };
      const admitted = await consumeN(store, k, 10, limits, T0);
      expect(admitted.map((d) => d.allowed)).toEqual(Array(10).fill(true));
      expect(admitted.map((d) => d.remainingMinute)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(admitted.map((d) => d.remainingDay)).toEqual([999, 998, 997, 996, 995, 994, 993, 992, 991, 990]);
      expect(admitted.every((d) => d.limited === null && d.retryAfter === null)).toBe(true);
      const refused = await store.consume(k, limits, T0 + 1_000);
      expect(refused).toMatchObject({
        allowed: false,
        limited: "minute",
        remainingMinute: 0,
        remainingDay: 990,
      });
      expect(refused).toMatchObject({ limitMinute: 10, limitDay: 1000 });
      expectHeadersAgree(refused, T0 + 1_000);
    });

    test("minute reset is when the oldest counted request ages out, rounded up; retryAfter is exact", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 2, day: 1000 };
      const first = await store.consume(k, limits, T0);
      // Nothing was counted before: the window resets when this request ages out.
      expect(first.resetMinute).toBe(Math.ceil((T0 + MINUTE_MS) / 1000));
      expect(first.resetDay).toBe(Math.ceil((T0 + DAY_MS) / 1000));
      await store.consume(k, limits, T0 + 10_000);
      const now = T0 + 30_500;
      const refused = await store.consume(k, limits, now);
      expect(refused.resetMinute).toBe(1_700_000_061);
      expect(refused.retryAfter).toBe(1_700_000_061 - 1_700_000_030);
      expectHeadersAgree(refused, now);
      // Still counted 1 ms before it ages out; free exactly at T0 + 60 s.
      expect((await store.consume(k, limits, T0 + MINUTE_MS - 1)).allowed).toBe(false);
      const next = await store.consume(k, limits, T0 + MINUTE_MS);
      expect(next.allowed).toBe(true);
      // The reset now follows the next-oldest request (T0 + 10 s).
      expect(next.resetMinute).toBe(Math.ceil((T0 + 10_000 + MINUTE_MS) / 1000));
    });

    test("a client retrying Retry-After seconds later is admitted", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 1, day: 1000 };
      await store.consume(k, limits, T0);
      for (const offset of [1, 999, 59_750, 59_999]) {
        const now = T0 + offset;
        const refused = await store.consume(k, limits, now);
        expectHeadersAgree(refused, now);
        const retryAt = now + (refused.retryAfter ?? 0) * 1000;
        expect(retryAt).toBeGreaterThanOrEqual(T0 + MINUTE_MS);
        expect((await store.peek(k, limits, retryAt)).allowed).toBe(true);
      }
    });

    test("day window: refuses with daily_limit_reached until the oldest request is 24 h old", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 100, day: 5 };
      for (let i = 0; i < 5; i++) {
        expect((await store.consume(k, limits, T0 + i * 3_600_000)).allowed).toBe(true);
      }
      const now = T0 + 10 * 3_600_000 + 123;
      const refused = await store.consume(k, limits, now);
      expect(refused).toMatchObject({
        allowed: false,
        limited: "day",
        remainingDay: 0,
        remainingMinute: 100,
      });
      expect(refused.resetDay).toBe(Math.ceil((T0 + DAY_MS) / 1000));
      expectHeadersAgree(refused, now);
      expect((await store.consume(k, limits, T0 + DAY_MS - 1)).limited).toBe("day");
      expect((await store.consume(k, limits, T0 + DAY_MS)).allowed).toBe(true);
      expect((await store.consume(k, limits, T0 + DAY_MS + 1)).limited).toBe("day");
    });

    test("day takes priority when both windows are spent", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 3, day: 3 };
      await consumeN(store, k, 3, limits, T0);
      const refused = await store.consume(k, limits, T0 + 5_000);
      expect(refused.limited).toBe("day");
      expect(refused.retryAfter).toBe(refused.resetDay - sec(T0 + 5_000));
    });

    test("refused requests are not counted", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 2, day: 4 };
      await consumeN(store, k, 2, limits, T0);
      const refusals = await consumeN(store, k, 20, limits, T0 + 30_000);
      expect(refusals.every((d) => !d.allowed && d.limited === "minute")).toBe(true);
      expect(refusals.every((d) => d.remainingDay === 2)).toBe(true);
      const later = await consumeN(store, k, 2, limits, T0 + MINUTE_MS);
      expect(later.map((d) => d.allowed)).toEqual([true, true]);
      expect((await store.consume(k, limits, T0 + 2 * MINUTE_MS)).limited).toBe("day");
    });

    test("windows slide: each request frees its slot exactly 60 s after it was admitted", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 3, day: 1000 };
      for (const at of [0, 20_000, 40_000]) {
        expect((await store.consume(k, limits, T0 + at)).allowed).toBe(true);
      }
      expect((await store.consume(k, limits, T0 + 50_000)).allowed).toBe(false);
      expect((await store.consume(k, limits, T0 + 60_000)).allowed).toBe(true);
      expect((await store.consume(k, limits, T0 + 61_000)).allowed).toBe(false);
      const atEighty = await store.consume(k, limits, T0 + 80_000);
      expect(atEighty).toMatchObject({ allowed: true, remainingMinute: 0 });
      expect(atEighty.resetMinute).toBe(Math.ceil((T0 + 40_000 + MINUTE_MS) / 1000));
      expect(atEighty.remainingDay).toBe(995);
    });

    test("30 concurrent requests against a limit of 10 admit exactly 10", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 10, day: 1000 };
      const decisions = await Promise.all(Array.from({ length: 30 }, () => store.consume(k, limits, T0)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.filter((d) => d.limited === "minute")).toHaveLength(20);
      expect((await store.peek(k, limits, T0)).remainingDay).toBe(990);
    });

    test("two instances on one backend share the windows (30 concurrent -> 10)", async () => {
      const { store, peer } = await open();
      const k = key();
      const limits = { minute: 10, day: 1000 };
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? store : peer).consume(k, limits, T0)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    });

    test("peek reports without spending", async () => {
      const { store } = await open();
      const k = key();
      const limits = { minute: 2, day: 10 };
      const fresh = await store.peek(k, limits, T0);
      expect(fresh).toMatchObject({
        allowed: true,
        remainingMinute: 2,
        remainingDay: 10,
        limited: null,
      });
      await consumeN(store, k, 2, limits, T0);
      const full = await store.peek(k, limits, T0 + 1);
      expect(full).toMatchObject({
        allowed: false,
        limited: "minute",
        remainingMinute: 0,
        remainingDay: 8,
      });
      expect((await store.peek(k, limits, T0 + 2)).remainingDay).toBe(8);
    });

    test("a limit lowered below the count resets when enough requests age out", async () => {
      const { store } = await open();
      const k = key();
      for (const at of [0, 10_000, 20_000, 30_000]) await store.consume(k, { minute: 10, day: 100 }, T0 + at);
      const refused = await store.consume(k, { minute: 2, day: 100 }, T0 + 40_000);
      // 4 counted, limit 2: a slot frees once the three oldest are out, i.e. when T0 + 20 s ages out.
      expect(refused.resetMinute).toBe(Math.ceil((T0 + 20_000 + MINUTE_MS) / 1000));
      expect((await store.consume(k, { minute: 2, day: 100 }, T0 + 20_000 + MINUTE_MS)).allowed).toBe(true);
    });

    test("keys are independent", async () => {
      const { store } = await open();
      const [a, b] = [key(), key()];
      const limits = { minute: 1, day: 10 };
      expect((await store.consume(a, limits, T0)).allowed).toBe(true);
      expect((await store.consume(a, limits, T0)).allowed).toBe(false);
      expect((await store.consume(b, limits, T0)).allowed).toBe(true);
    });

    test("address throttle: the configured limit per minute (IP_LIMIT_MINUTE, 600 by default), sliding, apart from key logs", async () => {
      const { store } = await open();
      const address = `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
      const perMinute = { limit: parseConfig({} as NodeJS.ProcessEnv).IP_LIMIT_MINUTE };
      const decisions = await Promise.all(Array.from({ length: 601 }, () => throttle(store, address, T0, perMinute)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
      const refused = decisions.find((d) => !d.allowed);
      expect(refused).toMatchObject({
        limit: 600,
        remaining: 0,
        reset: Math.ceil((T0 + MINUTE_MS) / 1000),
      });
      expect(refused?.retryAfter).toBe(Math.ceil((T0 + MINUTE_MS) / 1000) - sec(T0));
      // Same text as a key: separate log.
      expect((await store.consume(address, { minute: 1, day: 1 }, T0)).allowed).toBe(true);
      expect((await throttle(store, address, T0 + MINUTE_MS, perMinute)).allowed).toBe(true);
    });

    test("throttle honours a custom limit and window", async () => {
      const { store } = await open();
      const address = `addr-${randomUUID()}`;
      const opts = { limit: 2, windowMs: 10_000 };
      expect((await throttle(store, address, T0, opts)).remaining).toBe(1);
      expect((await throttle(store, address, T0, opts)).remaining).toBe(0);
      const refused = await throttle(store, address, T0 + 5_000, opts);
      expect(refused).toMatchObject({
        allowed: false,
        retryAfter: Math.ceil((T0 + 10_000) / 1000) - sec(T0 + 5_000),
      });
      expect((await throttle(store, address, T0 + 10_000, opts)).allowed).toBe(true);
    });

    test("rejects malformed windows", async () => {
      const { store } = await open();
      await expect(store.hit(key(), [], T0)).rejects.toThrow();
      await expect(store.hit(key(), [{ ms: 0, limit: 1 }], T0)).rejects.toThrow();
      await expect(store.consume(key(), { minute: -1, day: 1 }, T0)).rejects.toThrow();
    });
  });
}
