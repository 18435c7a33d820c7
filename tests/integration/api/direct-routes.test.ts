import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, newKey } from "../support/api";
import { freePort, untilHealthy } from "../support/server";

// The production server answers /v1 in its node:http front (lib/api/node-adapter.ts) without
// Next's router; `next dev` (and `next start`) answer it through the app/v1 route files. For the
// same requests, both must answer alike: status, headers and body, errors included. The only
// difference allowed is Next's own `Vary` tokens for React Server Components, which an API
// response has no use for. The route files are reached here through `next start` on the same
// build and database (no front, no boot: the database is the one the test servers booted).

let nextOnly: { baseUrl: string; process: ChildProcess };
let key = "";
let index = "";
let series = "";

beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        PORT: String(port),
        PUBLIC_BASE_URL: url,
        DATABASE_URL: inject("databaseUrl"),
        REDIS_URL: inject("redisUrl"),
        REDIS_PREFIX: inject("redisPrefix"),
        DEMO_MARKET: "1",
        ENGINE_SCHEDULER: "0",
        AUTH_SECRET: "it-direct-routes",
        IP_LIMIT_MINUTE: "1000000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  nextOnly = { baseUrl: url, process: child };
  await untilHealthy(child, url, () => log, { timeoutMs: 120_000 });
  key = (await newKey({ limitMinute: 100_000, limitDay: 1_000_000 })).key;
  const catalog = await (
    await fetch(`${baseUrl()}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } })
  ).json();
  index = catalog.data.indices.find((i: { publicStatus: string }) => i.publicStatus === "active").ticker;
  series = (await (await fetch(`${baseUrl()}/v1/volatility`, { headers: { Authorization: `Bearer ${key}` } })).json())
    .data.series[0].ticker;
}, 200_000);

afterAll(() => {
  nextOnly?.process.kill("SIGTERM");
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request as sent and received on the wire: no redirects followed, no decoding. */
function raw(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: init.method ?? "GET", headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

// Differ per response or per server: the clock, the request id, the quota spent so far, framing.
const PER_RESPONSE = new Set([
  "date",
  "x-request-id",
  "x-ratelimit-remaining",
  "x-ratelimit-remaining-day",
  "ratelimit",
  "transfer-encoding",
  "content-length",
  "connection",
  "keep-alive",
  "vary",
]);
const NEXT_ONLY_VARY = /^(rsc|next-router-[a-z-]+)$/;

function comparable(r: Raw, base: string) {
  const headers: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.headers)) if (!PER_RESPONSE.has(k)) headers[k] = v;
  let text = r.headers["content-encoding"] ? `<${r.headers["content-encoding"]} body>` : r.body.toString("utf8");
  text = text
    .replaceAll(base, "BASE")
    .replace(/"(requestId|generatedAt|effectiveStart|effectiveEnd|windowStart)":"[^"]*"/g, '"$1":"*"')
    .replace(/"remaining(Minute|Day)":\d+/g, '"remaining$1":0');
  const vary = String(r.headers.vary ?? "")
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  return { status: r.status, headers, text, vary };
}

/** Where two bodies first differ, a few members of each, or "" when they are equal. */
function firstDifference(a: string, b: string): string {
  if (a === b) return "";
  const as = a.split(/(?<=[,{])/);
  const bs = b.split(/(?<=[,{])/);
  const i = as.findIndex((x, j) => x !== bs[j]);
  return `${as.slice(i, i + 3).join("")} | ${bs.slice(i, i + 3).join("")}`;
}

const auth = () => ({ Authorization: `Bearer ${key}` });

const cases = (): Array<[string, string, { method?: string; headers?: Record<string, string> }]> => [
  ["service index", "/v1", { headers: auth() }],
  ["index catalog", "/v1/indices", { headers: auth() }],
  ["index latest", `/v1/indices/${index}/latest`, { headers: auth() }],
  [
    "index history, fixed window",
    `/v1/indices/${index}/history?interval=1d&start=2026-09-01T00:00:00Z&end=2026-10-01T00:00:00Z`,
    { headers: auth() },
  ],
  ["reconstitutions", `/v1/indices/${index}/reconstitutions?limit=3`, { headers: auth() }],
  ["volatility catalog", "/v1/volatility", { headers: { "X-API-Key": key } }],
  ["volatility latest", `/v1/volatility/${series}/latest`, { headers: auth() }],
  ["volatility history", `/v1/volatility/${series}/history?limit=3&end=2026-10-01T00:00:00Z`, { headers: auth() }],
  ["downloads", "/v1/downloads", { headers: auth() }],
  ["unknown ticker", "/v1/indices/NOPE/latest", { headers: auth() }],
  ["invalid interval", `/v1/indices/${index}/history?interval=5m`, { headers: auth() }],
  ["repeated parameter", `/v1/indices/${index}/history?interval=1h&interval=1d`, { headers: auth() }],
  ["no key", "/v1/indices", {}],
  ["unknown key", "/v1/indices", { headers: { Authorization: "Bearer svc_live_not-a-key" } }],
  ["malformed Authorization", "/v1/indices", { headers: { Authorization: "Basic abc" } }],
  ["unknown endpoint", "/v1/nothing/here", { headers: auth() }],
  ["method not allowed", "/v1/indices", { method: "POST", headers: auth() }],
  ["HEAD", `/v1/indices/${index}/latest`, { method: "HEAD", headers: auth() }],
  [
    "CORS preflight",
    "/v1/indices",
    { method: "OPTIONS", headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "GET" } },
  ],
  ["CORS request", "/v1/indices", { headers: { ...auth(), Origin: "http://localhost:5173" } }],
  ["gzip", `/v1/indices/${index}/history?interval=1h`, { headers: { ...auth(), "Accept-Encoding": "gzip" } }],
  ["gzip, a body of one string", "/v1/indices", { headers: { ...auth(), "Accept-Encoding": "gzip" } }],
  ["a long body in reused parts, uncompressed", `/v1/volatility/${series}/history?limit=5000`, { headers: auth() }],
  ["percent-encoded path", `/v1/indices/${encodeURIComponent(index).replace(/^P/, "%50")}/latest`, { headers: auth() }],
];

describe("the front answers /v1 exactly as the route files do through Next's router", () => {
  it.each(cases().map((c, i) => [c[0], i] as const))("%s", async (_label, i) => {
    const [, path, init] = cases()[i]!;
    const direct = await raw(baseUrl(), path, init);
    const routed = await raw(nextOnly.baseUrl, path, init);
    const a = comparable(direct, baseUrl());
    const b = comparable(routed, nextOnly.baseUrl);
    expect(a.status).toBe(b.status);
    expect(a.headers).toEqual(b.headers);
    expect(firstDifference(a.text, b.text)).toBe("");
    const apiVary = (v: string[]) => v.filter((t) => !NEXT_ONLY_VARY.test(t));
    expect(apiVary(a.vary)).toEqual(apiVary(b.vary));
    if (direct.headers["content-encoding"]) {
      expect(direct.headers["content-encoding"]).toBe("gzip");
      const { gunzipSync } = await import("node:zlib");
      const json = (buf: Buffer, base: string) =>
        comparable({ ...direct, headers: {}, body: gunzipSync(buf) }, base).text;
      expect(json(direct.body, baseUrl())).toBe(json(routed.body, nextOnly.baseUrl));
    }
  });

  it("a Host header cannot change the path or query the handler reads", async () => {
    for (const host of ["x?interval=1d#", "x/v1/indices/NOPE/latest?", "x#"]) {
      const res = await raw(baseUrl(), `/v1/indices/${index}/history?interval=1h`, {
        headers: { ...auth(), Host: host },
      });
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body.toString("utf8"));
      expect(body.data).toMatchObject({ ticker: index, interval: "1h" });
    }
  });

  it("the production server serves /v1 without Next's router; `next start` routes it through Next", async () => {
    // Next's router adds its React Server Components Vary tokens to every response it sends.
    const direct = await raw(baseUrl(), "/v1/indices", { headers: auth() });
    const routed = await raw(nextOnly.baseUrl, "/v1/indices", { headers: auth() });
    expect(String(direct.headers.vary)).not.toMatch(/\brsc\b/);
    expect(String(routed.headers.vary)).toMatch(/\brsc\b/);
    // Pages and the rest stay with Next on both.
    const page = await raw(baseUrl(), "/indices");
    expect(page.status).toBe(200);
    expect(String(page.headers.vary)).toMatch(/\brsc\b/);
  });
});
