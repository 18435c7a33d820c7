import { describe, expect, it } from "vitest";
import { applyRunEnvironment, baseUrl, newKey } from "../support/api";
import { INITIALIZE, callTool, connect, postMcp, rpc } from "./support";

// MCP's own security rules; the shared cases (no key, unknown, malformed, revoked and rotated
// keys, wrong methods, limits) are generated for /mcp with the /v1 endpoints in api/security.test.ts.

type Raw = Awaited<ReturnType<typeof postMcp>>;

/** The API's one error shape on the HTTP response, with requestId equal to X-Request-Id. */
function expectHttpError(res: Raw, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.requestId).toBe(res.headers.get("x-request-id"));
  const anchor = code === "error" ? "/docs/limits" : `/docs/errors#${code}`;
  const docs = new URL(res.body.error.docsUrl);
  expect(`${docs.pathname}${docs.hash}`).toBe(anchor);
}

describe("the key is required to connect", () => {
  it("the SDK client cannot connect without a valid key", async () => {
    await expect(connect(`svc_live_${"B".repeat(43)}`)).rejects.toThrow(/invalid_api_key/);
  });
});

describe("a revoked key is refused at once", () => {
  it("a connected client's next tool call is refused, on both instances", async () => {
    const { key, id, userId } = await newKey();
    const clients = [await connect(key, { instance: 0 }), await connect(key, { instance: 1 })];
    try {
      for (const client of clients) expect((await callTool(client, "get_downloads")).isError ?? false).toBe(false);
      applyRunEnvironment();
      const { revokeKey } = await import("@/lib/keys/manage-keys");
      const { root } = await import("@/lib/root");
      await revokeKey(await root().db(), root().keys, id, userId);
      for (const client of clients) await expect(callTool(client, "get_downloads")).rejects.toThrow(/invalid_api_key/);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe("the key never travels in the URL", () => {
  it.each(["api_key", "apiKey", "key", "token", "access_token"])(
    "?%s=<key> is refused even with a valid header",
    async (name) => {
      const { key } = await newKey();
      const res = await postMcp(INITIALIZE, { key, query: `?${name}=${encodeURIComponent(key)}` });
      expectHttpError(res, 401, "invalid_api_key");
      expect(res.body.error.message).toMatch(/URL/);
    },
  );

  it("a key-shaped value under any parameter name is refused", async () => {
    const { key } = await newKey();
    expectHttpError(await postMcp(INITIALIZE, { query: `?x=${encodeURIComponent(key)}` }), 401, "invalid_api_key");
  });
});

describe("Origin is validated (MCP transport rule against DNS rebinding)", () => {
  it("a present Origin that is not allowed gives 403, before the key is looked at", async () => {
    const { key } = await newKey();
    for (const origin of ["https://evil.example", "null"]) {
      const res = await postMcp(INITIALIZE, { key, headers: { Origin: origin } });
      expectHttpError(res, 403, "error");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("the service's own origin is allowed, and so is no Origin (server-to-server clients)", async () => {
    const { key } = await newKey();
    const own = new URL(baseUrl()).origin;
    const res = await postMcp(INITIALIZE, { key, headers: { Origin: own } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(own);
    expect((await postMcp(INITIALIZE, { key })).status).toBe(200);
  });

  it("a preflight from the own origin is answered; from another origin it is 403", async () => {
    const own = new URL(baseUrl()).origin;
    const preflight = (origin: string) =>
      fetch(`${baseUrl()}/mcp`, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
        },
      });
    const ok = await preflight(own);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    expect(ok.headers.get("access-control-allow-methods")).toMatch(/POST/);
    expect((await preflight("https://evil.example")).status).toBe(403);
  });
});

describe("stateless transport", () => {
  it("no session id is issued, and a tools/call works without a prior initialize", async () => {
    const { key } = await newKey();
    const init = await postMcp(INITIALIZE, { key });
    expect(init.headers.get("mcp-session-id")).toBeNull();
    const res = await postMcp(rpc("tools/call", { name: "get_downloads", arguments: {} }), { key });
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent.data.latestManifestUrl).toMatch(/manifest\.json$/);
  });
});
