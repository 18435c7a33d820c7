import { beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "@/lib/api/endpoint-table";
import { applyRunEnvironment, baseUrl, call, expectError, expectRateHeaders, newKey } from "../support/api";

// The common security cases, generated from the endpoint table (all nine /v1 endpoints) and for
// MCP: no key, unknown key, revoked, rotated, both headers (same and different), wrong method.

let index = "";
let series = "";

beforeAll(async () => {
  const { key } = await newKey();
  index = (await call("/v1/indices", { key })).body.data.indices[0].ticker;
  series = (await call("/v1/volatility", { key })).body.data.series[0].ticker;
});

interface Target {
  name: string;
  /** The request that succeeds with a valid key. */
  request(): { path: string; method: string; headers: Record<string, string>; body?: string };
  wrongMethod: string;
  allow: string;
}

const V1: Target[] = Object.values(ENDPOINTS).map((e) => ({
  name: e.path,
  request: () => ({
    path: e.path.replace("{ticker}", e.path.startsWith("/v1/volatility") ? series : index),
    method: "GET",
    headers: {},
  }),
  wrongMethod: "POST",
  allow: "GET",
}));

const MCP: Target = {
  name: "/mcp",
  request: () => ({
    path: "/mcp",
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }),
  wrongMethod: "GET",
  allow: "POST",
};

async function send(target: Target, headers: Record<string, string>, method?: string) {
  const r = target.request();
  const res = await fetch(`${baseUrl()}${r.path}`, {
    method: method ?? r.method,
    headers: { ...r.headers, ...headers },
    body: (method ?? r.method) === "POST" ? (r.body ?? "") : undefined,
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the assertions below fail on it
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { status: res.status, headers: res.headers, body: body as Record<string, any> };
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each([...V1, MCP].map((t) => [t.name, t] as const))("security cases on %s", (_name, target) => {
  it("no key: invalid_api_key without rate-limit headers", async () => {
    const res = await send(target, {});
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("a key that never existed: invalid_api_key", async () => {
    const res = await send(target, bearer(`svc_live_${"A".repeat(43)}`));
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
  });

  it("a valid key: answered, in either header or both with the same key", async () => {
    const { key } = await newKey();
    for (const headers of [bearer(key), { "X-API-Key": key }, { ...bearer(key), "X-API-Key": key }]) {
      const res = await send(target, headers);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      if (target !== MCP) expectRateHeaders(res, true);
    }
  });

  it("two different keys: invalid_api_key", async () => {
    const a = await newKey();
    const b = await newKey();
    const res = await send(target, { ...bearer(a.key), "X-API-Key": b.key });
    expectError(res, 401, "invalid_api_key");
  });

  it("a revoked key: invalid_api_key on the next request", async () => {
    const { key, id, userId } = await newKey();
    expect((await send(target, bearer(key))).status).toBe(200);
    applyRunEnvironment();
    const { revokeKey } = await import("@/lib/keys/manage-keys");
    const { root } = await import("@/lib/root");
    await revokeKey(await root().db(), root().keys, id, userId);
    const res = await send(target, bearer(key));
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
  });

  it("a rotated key: the old secret is refused, the new one answered", async () => {
    const { key, id, userId } = await newKey();
    expect((await send(target, bearer(key))).status).toBe(200);
    applyRunEnvironment();
    const { rotateKey } = await import("@/lib/keys/manage-keys");
    const { root } = await import("@/lib/root");
    const rotated = await rotateKey(await root().db(), root().keys, id, userId);
    expectError(await send(target, bearer(key)), 401, "invalid_api_key");
    expect((await send(target, bearer(rotated.key))).status).toBe(200);
  });

  it("the wrong method: method_not_allowed with Allow, even with a valid key", async () => {
    const { key } = await newKey();
    const res = await send(target, bearer(key), target.wrongMethod);
    expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe(target.allow);
  });
});
