import { describe, expect, it } from "vitest";
import { applyRunEnvironment, call, expectError, expectRateHeaders, newKey } from "../support/api";

describe("per-key minute window", () => {
  it("refuses the request after the limit with rate_limited, exact Retry-After and all headers", async () => {
    const { key } = await newKey({ limitMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await call("/v1/indices", { key });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
    }
    const before = Math.floor(Date.now() / 1000);
    const res = await call("/v1/indices", { key });
    const after = Math.floor(Date.now() / 1000);
    expectError(res, 429, "rate_limited");
    expectRateHeaders(res, true);
    const retryAfter = Number(res.headers.get("retry-after"));
    const reset = Number(res.headers.get("x-ratelimit-reset"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(reset - retryAfter).toBeGreaterThanOrEqual(before);
    expect(reset - retryAfter).toBeLessThanOrEqual(after);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});

describe("per-key day window", () => {
  it("refuses with daily_limit_reached and Retry-After agreeing with X-RateLimit-Reset-Day", async () => {
    const { key } = await newKey({ limitMinute: 100, limitDay: 2 });
    expect((await call("/v1/downloads", { key })).status).toBe(200);
    expect((await call("/v1/downloads", { key })).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const res = await call("/v1/downloads", { key });
    expectError(res, 429, "daily_limit_reached");
    expectRateHeaders(res, true);
    const retryAfter = Number(res.headers.get("retry-after"));
    const resetDay = Number(res.headers.get("x-ratelimit-reset-day"));
    expect(Math.abs(resetDay - retryAfter - now)).toBeLessThanOrEqual(1);
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(res.headers.get("x-ratelimit-remaining-day")).toBe("0");
  });
});

describe("GET /v1 is the authoritative quota report", () => {
  it("counts itself and reports the remainder after it", async () => {
    const { key } = await newKey({ limitMinute: 10, limitDay: 50 });
    const first = await call("/v1", { key });
    expect(first.body.data.key).toMatchObject({ limitMinute: 10, limitDay: 50, remainingMinute: 9, remainingDay: 49 });
    await call("/v1/indices", { key });
    const second = await call("/v1", { key });
    expect(second.body.data.key).toMatchObject({ remainingMinute: 7, remainingDay: 47 });
    expect(second.headers.get("x-ratelimit-remaining")).toBe("7");
    expect(second.body.data.limits).toEqual({
      requestsPerMinute: 60,
      requestsPerDay: 2000,
      historyMaxDays: 90,
      intervals: ["1h", "1d"],
    });
  });
});

describe("a known key is counted once per request", () => {
  it("also when another key's revocation moved the revocation epoch between its requests", async () => {
    // A key the instance has resolved before is spent in the same step as the address throttle;
    // a moved epoch makes the instance resolve it again, and the request must still count once.
    const { key } = await newKey({ limitMinute: 100, limitDay: 1000 });
    const other = await newKey();
    const remaining = async () =>
      Number((await call("/v1/indices", { key, instance: 0 })).headers.get("x-ratelimit-remaining-day"));
    const first = await remaining();
    expect(await remaining()).toBe(first - 1);
    applyRunEnvironment();
    const { revokeKey } = await import("@/lib/keys/manage-keys");
    const { root } = await import("@/lib/root");
    await revokeKey(await root().db(), root().keys, other.id, other.userId);
    expect(await remaining()).toBe(first - 2);
    expect(await remaining()).toBe(first - 3);
    expectError(await call("/v1/indices", { key: other.key, instance: 0 }), 401, "invalid_api_key");
  });
});

describe("limits hold across two instances sharing Redis", () => {
  it("30 concurrent requests against a limit of 10 admit exactly 10", async () => {
    const { key } = await newKey({ limitMinute: 10, limitDay: 1000 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call("/v1/downloads", { key, instance: i % 2 })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.error.code).toBe("rate_limited");
  });
});
