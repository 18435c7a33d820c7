import { beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "@/lib/api/endpoint-table";
import { applyRunEnvironment, baseUrl, expectError, expectRateHeaders, newKey } from "../support/api";

// The shared security cases, generated for every keyed endpoint (the nine /v1 endpoints and MCP)
// instead of copied per route: no key, a key that never existed, malformed credentials, either
// header or both, two different keys, revoked and rotated keys on both instances, the wrong
// method with and without a key, and the minute and day limits.

let index = "";
let series = "";

beforeAll(async () => {
  const { key } = await newKey();
  const get = async (path: string) =>
    (await (await fetch(`${baseUrl()}${path}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      data: { indices?: Array<{ ticker: string }>; series?: Array<{ ticker: string }> };
    };
  index = (await get("/v1/indices")).data.indices![0]!.ticker;
  series = (await get("/v1/volatility")).data.series![0]!.ticker;
});

interface Request {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

interface Target {
  name: string;
  /** The requests that succeed with a valid key (MCP: every kind of message). */
  requests(): Request[];
  /** A request that spends the key's windows. */
  spending(): Request;
  /** Whether a refusal for `code` came back: the HTTP error for /v1, a tool error for MCP. */
  refusedFor(res: Answer, code: string): void;
  /** Whether an answer carries the key's rate-limit headers. */
  rateHeaders: boolean;
  wrongMethods: string[];
  allow: string;
}

type Answer = Awaited<ReturnType<typeof send>>;

const V1: Target[] = Object.values(ENDPOINTS).map((e) => {
  const request = (): Request => ({
    path: e.path.replace("{ticker}", e.path.startsWith("/v1/volatility") ? series : index),
    method: "GET",
    headers: {},
  });
  return {
    name: e.path,
    requests: () => [request()],
    spending: request,
    refusedFor: (res, code) => {
      expectError(res, 429, code);
      expectRateHeaders(res, true);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    },
    rateHeaders: true,
    wrongMethods: ["POST", "PUT", "PATCH", "DELETE"],
    allow: "GET",
  };
});

const mcpMessage = (message: object): Request => ({
  path: "/mcp",
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
});

const MCP: Target = {
  name: "/mcp",
  requests: () => [
    mcpMessage({
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "security", version: "1" } },
    }),
    mcpMessage({ method: "tools/list" }),
    mcpMessage({ method: "tools/call", params: { name: "get_downloads", arguments: {} } }),
  ],
  spending: () => mcpMessage({ method: "tools/call", params: { name: "get_downloads", arguments: {} } }),
  refusedFor: (res, code) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error.code).toBe(code);
  },
  rateHeaders: false,
  wrongMethods: ["GET", "PUT", "DELETE"],
  allow: "POST",
};

async function send(r: Request, headers: Record<string, string>, options: { method?: string; instance?: number } = {}) {
  const method = options.method ?? r.method;
  const res = await fetch(`${baseUrl(options.instance)}${r.path}`, {
    method,
    headers: { ...r.headers, ...headers },
    body: method === "POST" ? (r.body ?? "") : undefined,
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
const first = (target: Target) => target.requests()[0]!;

async function keys() {
  applyRunEnvironment();
  const { revokeKey, rotateKey } = await import("@/lib/keys/manage-keys");
  const { root } = await import("@/lib/root");
  return {
    revoke: async (id: string, userId: string) => revokeKey(await root().db(), root().keys, id, userId),
    rotate: async (id: string, userId: string) => rotateKey(await root().db(), root().keys, id, userId),
  };
}

describe.each([...V1, MCP].map((t) => [t.name, t] as const))("security cases on %s", (_name, target) => {
  it("no key: invalid_api_key (401) with WWW-Authenticate and no rate-limit headers, on every message", async () => {
    for (const r of target.requests()) {
      const res = await send(r, {});
      expectError(res, 401, "invalid_api_key");
      expectRateHeaders(res, false);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("a key that never existed: invalid_api_key without rate-limit headers", async () => {
    const res = await send(first(target), bearer(`svc_live_${"A".repeat(43)}`));
    expectError(res, 401, "invalid_api_key");
    expectRateHeaders(res, false);
  });

  it.each(["Basic abc", "Bearer", "Bearer " + "x".repeat(8000), "Bearer svc_live_\u00e9\u00e9", "Bearer a b"])(
    "a malformed Authorization header or an absurdly long key is answered invalid_api_key: %#",
    async (value) => {
      // Every request must be answered: a dropped connection fails the test.
      const res = await send(first(target), { Authorization: value });
      expectError(res, 401, "invalid_api_key");
      expectRateHeaders(res, false);
    },
  );

  it("a valid key: answered in either header or both with the same key, on every message", async () => {
    const { key } = await newKey();
    for (const r of target.requests())
      for (const headers of [bearer(key), { "X-API-Key": key }, { ...bearer(key), "X-API-Key": key }]) {
        const res = await send(r, headers);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.headers.get("x-request-id")).toBeTruthy();
        if (target.rateHeaders) {
          expectRateHeaders(res, true);
          expect(res.headers.get("ratelimit-policy")).toMatch(/"minute";q=\d+;w=60/);
        }
      }
  });

  it("two different keys: invalid_api_key with a message saying to send one", async () => {
    const a = await newKey();
    const b = await newKey();
    const res = await send(first(target), { ...bearer(a.key), "X-API-Key": b.key });
    expectError(res, 401, "invalid_api_key");
    expect(res.body.error.message).toMatch(/one key/i);
  });

  it("a revoked key: refused on the very next request by both instances", async () => {
    const { key, id, userId } = await newKey();
    for (const instance of [0, 1]) expect((await send(first(target), bearer(key), { instance })).status).toBe(200);
    await (await keys()).revoke(id, userId);
    for (const instance of [0, 1]) {
      const res = await send(first(target), bearer(key), { instance });
      expectError(res, 401, "invalid_api_key");
      expectRateHeaders(res, false);
    }
  });

  it("a rotated key: the old secret refused at once, the new one answered, on both instances", async () => {
    const { key, id, userId } = await newKey();
    expect((await send(first(target), bearer(key), { instance: 1 })).status).toBe(200);
    const rotated = await (await keys()).rotate(id, userId);
    for (const instance of [0, 1]) {
      expectError(await send(first(target), bearer(key), { instance }), 401, "invalid_api_key");
      expect((await send(first(target), bearer(rotated.key), { instance })).status).toBe(200);
    }
  });

  it.each(target.wrongMethods)("%s: method_not_allowed (405) with Allow, with or without a valid key", async (m) => {
    const { key } = await newKey();
    for (const headers of [{}, bearer(key)]) {
      const res = await send(first(target), headers, { method: m });
      expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe(target.allow);
    }
  });

  it("the minute limit: the request past it is refused with rate_limited", async () => {
    const { key } = await newKey({ limitMinute: 1, limitDay: 100 });
    expect((await send(target.spending(), bearer(key))).status).toBe(200);
    target.refusedFor(await send(target.spending(), bearer(key)), "rate_limited");
  });

  it("the day limit: the request past it is refused with daily_limit_reached", async () => {
    const { key } = await newKey({ limitMinute: 100, limitDay: 1 });
    expect((await send(target.spending(), bearer(key))).status).toBe(200);
    target.refusedFor(await send(target.spending(), bearer(key)), "daily_limit_reached");
  });
});
