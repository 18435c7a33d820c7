import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_HEADERS, baseUrl, call, expectError, expectRateHeaders, newKey, ownServer } from "../support/api";
import type { RunningServer } from "../support/server";

// Odd requests: whatever produced the answer, it carries X-Request-Id
// and, for errors, the spec's JSON error shape; the server never logs a stack trace for one.
// A server of this file's own (a low address throttle, its own Redis prefix, its log read).

let server: RunningServer;

beforeAll(async () => {
  server = await ownServer("it_requests", { AUTH_SECRET: "it-requests-secret-0123456789", IP_LIMIT_MINUTE: "40" });
}, 200_000);

afterAll(async () => {
  await server?.stop();
});

interface Wire {
  status: number;
  head: string;
  headers: Record<string, string>;
  body: string;
}

/** Bytes written to the server as they are (what no HTTP client would send), the answer as read. */
function rawRequest(bytes: Buffer | string): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), head, headers, body: rest.join("\r\n\r\n") });
    });
    socket.write(bytes);
    // One request per connection (Connection: close, or a request the server refuses and closes
    // on): the server closes once it has answered. Half-closing on a timer instead made the
    // answer depend on the server replying within it (Node drops the answer to a half-closed socket).
    socket.setTimeout(30_000, () => socket.destroy(new Error("no answer in 30 s")));
  });
}

/** A GET from a given local address (the server throttles by the socket's peer address). */
function getFrom(
  localAddress: string,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: server.port, path, localAddress, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
  });
}

function expectJsonError(res: Wire, status: number, code: string): void {
  expect(res.status, res.head).toBe(status);
  expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe(code);
  expect(body.error.requestId).toBe(res.headers["x-request-id"]);
}

// A JSON log line holds a stack with its newlines escaped.
const stackTraces = () =>
  server
    .output()
    .split(/\n|\\n/)
    .filter((l) => /^\s+at\s/.test(l));

describe("methods no route takes", () => {
  const paths = [
    "/v1",
    "/v1/indices",
    "/v1/indices/X/latest",
    "/v1/volatility/X/history",
    "/v1/downloads",
    "/mcp",
    "/downloads",
    "/healthz",
    "/portal",
  ];

  it.each(paths)("TRACE %s answers method_not_allowed with Allow and X-Request-Id, and logs nothing", async (path) => {
    // fetch refuses to send TRACE; the wire does not.
    const wire = await rawRequest(`TRACE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonError(wire, 405, "method_not_allowed");
    expect(wire.headers.allow).toBe(path.startsWith("/v1") ? "GET" : path === "/mcp" ? "POST" : "GET, HEAD");
    expect(stackTraces()).toEqual([]);
  });

  it.each(["FOO", "PROPFIND"])("%s answers method_not_allowed in the JSON shape", async (method) => {
    const wire = await rawRequest(`${method} /v1/indices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonError(wire, 405, "method_not_allowed");
    expect(wire.headers.allow).toBe("GET");
  });
});

describe("requests Node cannot parse", () => {
  it("raw non-ASCII bytes in the path: 400 in the JSON shape with X-Request-Id", async () => {
    const wire = await rawRequest(
      Buffer.concat([
        Buffer.from("GET /v1/"),
        Buffer.from([0xff, 0xfe, 0x01]),
        Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
      ]),
    );
    expectJsonError(wire, 400, "error");
  });

  it("oversized headers: 431 in the JSON shape with X-Request-Id", async () => {
    const wire = await rawRequest(`GET /v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expectJsonError(wire, 431, "error");
  });

  it.each(["/v1/indices", "/", "/healthz"])(
    "HTTP/1.1 without Host (%s): 400 in the JSON shape with X-Request-Id",
    async (path) => {
      const wire = await rawRequest(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expectJsonError(wire, 400, "error");
      expect(JSON.parse(wire.body).error.message).toMatch(/Host/);
    },
  );

  it.each(["/v1/indices", "/"])("two Host headers (%s): 400 in the JSON shape (RFC 9112 section 3.2)", async (path) => {
    const wire = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`);
    expectJsonError(wire, 400, "error");
    expect(JSON.parse(wire.body).error.message).toMatch(/one Host header/);
  });

  it("absolute-form target (RFC 9112 section 3.2.2): answered as its path and query, exactly as the origin form", async () => {
    const { key } = await newKey();
    const auth = `Authorization: Bearer ${key}\r\n`;
    const get = (target: string) => rawRequest(`GET ${target} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`);
    const origin = await get("/v1/indices");
    const absolute = await get(`http://127.0.0.1:${server.port}/v1/indices`);
    expect(origin.status, origin.head).toBe(200);
    expect(absolute.status, absolute.head).toBe(200);
    expect(JSON.parse(absolute.body).data).toEqual(JSON.parse(origin.body).data);
    // the query is the target's too
    const ticker = JSON.parse(origin.body).data.indices[0].ticker as string;
    expectJsonError(await get(`http://x/v1/indices/${ticker}/history?interval=2h`), 422, "invalid_interval");
    // without a key, the /v1 answer of the path (not a 400 about the target)
    const keyless = await rawRequest(`GET HTTP://X/v1/indices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonError(keyless, 401, "invalid_api_key");
    // https and an empty path (the root's page); the probes through the absolute form too
    expect((await rawRequest(`GET https://x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).status).toBe(200);
    const live = await rawRequest(`GET http://x/livez HTTP/1.1\r\nHost: y\r\nConnection: close\r\n\r\n`);
    expect(live.status, live.head).toBe(200);
    expect(JSON.parse(live.body).status).toBe("ok");
  });

  it.each([
    ["ftp://x/v1/indices", /not a path nor an http or https URL/],
    ["http:///v1/indices", /not a path nor an http or https URL/],
    ["http://user@x/v1/indices", /not a path nor an http or https URL/],
    // targets without "//" or "/" Node's parser refuses itself: 400 all the same
    ["urn:x:y", /could not be read as HTTP/],
    ["v1/indices", /could not be read as HTTP/],
  ])("a malformed target %s: 400 in the JSON shape, naming what to send", async (target, message) => {
    const wire = await rawRequest(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonError(wire, 400, "error");
    expect(JSON.parse(wire.body).error.message).toMatch(message);
    expect(JSON.parse(wire.body).error.message).not.toMatch(/percent-encoding/);
  });

  it("two Host headers with an absolute-form target: still 400 (RFC 9112 section 3.2)", async () => {
    const wire = await rawRequest(`GET http://x/v1 HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`);
    expectJsonError(wire, 400, "error");
    expect(JSON.parse(wire.body).error.message).toMatch(/one Host header/);
  });

  it("OPTIONS * (RFC 9110 section 9.3.7): 204 with Allow listing the server's methods and X-Request-Id", async () => {
    const wire = await rawRequest("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(wire.status, wire.head).toBe(204);
    expect(wire.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    expect(wire.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(wire.body).toBe("");
    // the asterisk is for OPTIONS only
    const get = await rawRequest("GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expectJsonError(get, 400, "error");
    expect(JSON.parse(get.body).error.message).toMatch(/OPTIONS only/);
  });

  it("TLS bytes on the plain port: 400 saying the port speaks plain HTTP, not 405", async () => {
    // The first bytes of a TLS 1.2/1.3 ClientHello: handshake record, version 3.1, length, ClientHello.
    const hello = Buffer.from([
      0x16,
      0x03,
      0x01,
      0x00,
      0xa5,
      0x01,
      0x00,
      0x00,
      0xa1,
      0x03,
      0x03,
      ...Array.from({ length: 32 }, (_, i) => i),
      0x00,
      0x00,
      0x02,
      0x13,
      0x01,
      0x01,
      0x00,
    ]);
    const wire = await rawRequest(hello);
    expectJsonError(wire, 400, "error");
    expect(JSON.parse(wire.body).error.message).toMatch(/plain HTTP, not TLS/);
    expect(stackTraces()).toEqual([]);
  });

  it("HTTP/1.0 without Host is served (Host is an HTTP/1.1 requirement)", async () => {
    const wire = await rawRequest("GET /v1 HTTP/1.0\r\n\r\n");
    // Whatever the answer (401 without a key; 429 or 503 on a spent throttle or a busy Redis), not the 400.
    expect(wire.status).not.toBe(400);
    expect(wire.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(["/v1/indices", "/"])(
    "an Expect other than 100-continue (%s): 417 in the JSON shape with X-Request-Id",
    async (path) => {
      const wire = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n`);
      expectJsonError(wire, 417, "error");
    },
  );

  it("no stack trace was logged for any of them", () => {
    expect(stackTraces()).toEqual([]);
  });
});

describe("answers from Next", () => {
  it.each(["/", "/indices", "/healthz", "/no-such-page"])("%s carries one X-Request-Id", async (path) => {
    const wire = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(wire.status).toBeLessThan(500);
    expect(wire.head.match(/^x-request-id:/gim)).toHaveLength(1);
    expect(wire.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("paths that are not canonical", () => {
  it.each([
    ["//v1/indices", "/v1/indices"],
    ["/v1/indices/", "/v1/indices"],
    ["/v1/indices//latest", "/v1/indices/latest"],
    ["/downloads/", "/downloads"],
    ["/v1/indices/?x=1", "/v1/indices?x=1"],
  ])("%s is a 308 to %s carrying X-Request-Id", async (path, location) => {
    const wire = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(wire.status).toBe(308);
    expect(wire.headers.location).toBe(location);
    expect(wire.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("unknown /v1 paths", () => {
  it("with a valid key: 404 with the six X-RateLimit-* headers, and the request is counted", async () => {
    const { key } = await newKey({ limitMinute: 50 });
    const first = await fetch(`${server.baseUrl}/v1/nothing/here`, { headers: { Authorization: `Bearer ${key}` } });
    expect(first.status).toBe(404);
    for (const h of RATE_HEADERS) expect(first.headers.has(h), h).toBe(true);
    const second = await fetch(`${server.baseUrl}/v1/nothing`, { headers: { Authorization: `Bearer ${key}` } });
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
  });

  it("count toward the per-address throttle", async () => {
    // From an address of its own (127.0.0.2), so no other test shares its budget.
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await getFrom("127.0.0.2", `/v1/nothing/${i}`)).status);
    expect(statuses.slice(0, 40).every((s) => s === 404)).toBe(true);
    expect(statuses.slice(40).every((s) => s === 429)).toBe(true);
    const res = await getFrom("127.0.0.2", "/v1/nothing");
    expect(JSON.parse(res.body).error.code).toBe("ip_rate_limited");
    expect(res.headers["x-request-id"]).toBeTruthy();
  });
});

describe("on the shared instances", () => {
  it("an ancient start is clamped, not rejected", async () => {
    const { key } = await newKey();
    const catalog = await call("/v1/indices", { key });
    const ticker = catalog.body.data.indices[0].ticker;
    for (const start of ["0001-01-01T00:00:00Z", "0050-01-01", "0099-12-31T23:59:59Z"]) {
      const res = await call(`/v1/indices/${ticker}/history?start=${start}`, { key });
      expect(res.status, start).toBe(200);
      expect(res.body.meta.clamped).toBe(true);
    }
    const series = (await call("/v1/volatility", { key })).body.data.series[0].ticker;
    const res = await call(`/v1/volatility/${series}/history?start=0001-01-01T00:00:00Z&limit=1`, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta.clamped).toBe(true);
  });

  it("the volatility path takes a ticker, not a slug", async () => {
    const { key } = await newKey();
    const entry = (await call("/v1/volatility", { key })).body.data.series[0];
    expect(entry.slug).toBeTruthy();
    expect(entry.slug.toUpperCase()).not.toBe(entry.ticker);
    expect((await call(`/v1/volatility/${entry.ticker}/latest`, { key })).status).toBe(200);
    for (const path of [`/v1/volatility/${entry.slug}/latest`, `/v1/volatility/${entry.slug}/history`]) {
      const res = await call(path, { key });
      expectError(res, 404, "not_found");
      expectRateHeaders(res, true);
    }
  });

  it("an empty JSON-RPC batch to /mcp is one Invalid Request error", async () => {
    const { key } = await newKey();
    const answer = await fetch(`${baseUrl()}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: "[]",
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await answer.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
    });
  });
});
