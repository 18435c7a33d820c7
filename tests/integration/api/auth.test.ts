import { describe, expect, it } from "vitest";
import { call, expectError, expectRateHeaders, newKey, applyRunEnvironment } from "../support/api";

const ENDPOINTS = ["/v1", "/v1/indices", "/v1/volatility", "/v1/downloads"];

describe.each(ENDPOINTS)("authentication on %s", (path) => {
  it("a missing key gives invalid_api_key (401) with X-Request-Id and no rate-limit headers", async () => {
    const res = await call(path);
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
  });

  it("a key that never existed gives invalid_api_key", async () => {
    const res = await call(path, { key: `svc_live_${"A".repeat(43)}` });
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
  });

  it("a valid key in either header is accepted, with the six rate-limit headers", async () => {
    const { key } = await newKey();
    for (const header of ["bearer", "x-api-key"] as const) {
      const res = await call(path, { key, header });
      expect(res.status).toBe(200);
      expectRateHeaders(res, true);
      expect(res.headers.get("ratelimit-policy")).toMatch(/"minute";q=\d+;w=60/);
    }
  });
});

describe("key headers", () => {
  it("the same key in both headers is accepted", async () => {
    const { key } = await newKey();
    const res = await call("/v1", { key, headers: { "X-API-Key": key } });
    expect(res.status).toBe(200);
  });

  it("two different keys give invalid_api_key with a message saying to send one", async () => {
    const a = await newKey();
    const b = await newKey();
    const res = await call("/v1", { key: a.key, headers: { "X-API-Key": b.key } });
    expectError(res, 401, "invalid_api_key");
    expect(res.body.error.message).toMatch(/one key/i);
  });

  it.each(["Basic abc", "Bearer", "Bearer " + "x".repeat(8000), "Bearer svc_live_\u00e9\u00e9", "Bearer a b"])(
    "a malformed Authorization header or an absurdly long key is invalid_api_key: %#",
    async (value) => {
      // Every request must be answered: a dropped connection fails the test.
      const res = await call("/v1", { headers: { Authorization: value } });
      expectError(res, 401, "invalid_api_key");
      expectRateHeaders(res, false);
    },
  );
});

describe("revocation and rotation hold on the very next request, on every instance", () => {
  it("a revoked key is refused at once by both instances", async () => {
    const { key, id, userId } = await newKey();
    expect((await call("/v1", { key, instance: 0 })).status).toBe(200);
    expect((await call("/v1", { key, instance: 1 })).status).toBe(200);
    applyRunEnvironment();
    const { revokeKey } = await import("@/lib/keys/manage-keys");
    const { root } = await import("@/lib/root");
    await revokeKey(await root().db(), root().keys, id, userId);
    for (const instance of [0, 1]) {
      const res = await call("/v1", { key, instance });
      expectError(res, 401, "invalid_api_key");
      expectRateHeaders(res, false);
    }
  });

  it("rotation kills the old secret at once and the new one works on both instances", async () => {
    const { key, id, userId } = await newKey();
    expect((await call("/v1", { key, instance: 1 })).status).toBe(200);
    applyRunEnvironment();
    const { rotateKey } = await import("@/lib/keys/manage-keys");
    const { root } = await import("@/lib/root");
    const rotated = await rotateKey(await root().db(), root().keys, id, userId);
    for (const instance of [0, 1]) {
      expectError(await call("/v1", { key, instance }), 401, "invalid_api_key");
      expect((await call("/v1", { key: rotated.key, instance })).status).toBe(200);
    }
  });
});

describe("key.prefix identifies the calling key", () => {
  it("GET /v1 reports the key's display prefix and never the secret", async () => {
    const { key } = await newKey();
    const res = await call("/v1", { key });
    expect(res.body.data.key.prefix).toBe(key.slice(0, "svc_live_".length + 4));
    expect(JSON.stringify(res.body)).not.toContain(key);
  });
});
