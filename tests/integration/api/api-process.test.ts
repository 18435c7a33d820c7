import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, newKey } from "../support/api";
import { startServer, type RunningServer } from "../support/server";
import { keyAction, newSecret, portal, startSmtp, type Portal, type SmtpSink } from "../portal/support";
import type { WireAnswer } from "./from-address";

// API_PROCESS=1 (lib/server/api-process.ts): /v1 is answered by a process that never loads
// Next, which runs the Next server as its child for everything else. Without Redis, what both
// must share is the API process's: MCP and the portal (in the child) spend from and revoke in it
// over IPC. Every keyed request here comes from a loopback address of its own test, so the
// per-address budget (8 a minute) spent by one test is not another's.

const IP_LIMIT = 8;
let server: RunningServer;
let smtp: SmtpSink;
let p: Portal;
let dataDir = "";
let index = "";

/** One request from `localAddress`, as sent and received on the wire. */
function wire(localAddress: string, target: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: target, method: init.method ?? "GET", headers: init.headers, localAddress, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

function v1(localAddress: string, key: string, target = "/v1"): Promise<WireAnswer> {
  return wire(localAddress, target, { headers: { Authorization: `Bearer ${key}` } });
}

/** A tools/call over the MCP endpoint (stateless: no session to open first). */
function mcpCall(localAddress: string, key: string | null, headers: Record<string, string> = {}): Promise<WireAnswer> {
  return wire(localAddress, "/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_quota", arguments: {} } }),
  });
}

/** The pids of a process's children (Linux /proc). */
function children(pid: number): number[] {
  return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

beforeAll(async () => {
  smtp = await startSmtp();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-api-process-"));
  server = await startServer({
    API_PROCESS: "1",
    DATABASE_URL: inject("databaseUrl"),
    REDIS_URL: "",
    DATA_DIR: dataDir,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: String(IP_LIMIT),
    EMAIL_SERVER: `smtp://127.0.0.1:${smtp.port}`,
    AUTH_SECRET: newSecret(),
    METERING_FLUSH_MS: "200",
  });
  p = portal(server.baseUrl, smtp);
  const { key } = await newKey();
  const catalog = await (await fetch(`${baseUrl()}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } })).json();
  index = catalog.data.indices.find((i: { publicStatus: string }) => i.publicStatus === "active").ticker;
}, 200_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("API_PROCESS=1", () => {
  it("answers /v1 from the API process and passes pages, docs and /healthz to Next behind it", async () => {
    const { key } = await newKey();
    const latest = await v1("127.0.0.11", key, `/v1/indices/${index}/latest`);
    expect(latest.status).toBe(200);
    // The same data as the ordinary server's, from the same database.
    const reference = await (await fetch(`${baseUrl()}/v1/indices/${index}/latest`, { headers: { Authorization: `Bearer ${key}` } })).json();
    expect(JSON.parse(latest.body).data).toEqual(reference.data);
    expect(latest.headers["x-ratelimit-remaining"]).toBeDefined();
    for (const page of ["/", "/docs", `/indices/${index}`]) {
      const res = await fetch(`${server.baseUrl}${page}`);
      expect(res.status, page).toBe(200);
      expect(res.headers.get("content-type"), page).toContain("text/html");
      expect(await res.text(), page).toContain("</html>");
    }
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    // The front still answers what it answers whatever the route: a path that is not canonical.
    const slash = await wire("127.0.0.11", "/docs/");
    expect(slash.status).toBe(308);
    expect(slash.headers.location).toBe("/docs");
  });

  it("MCP in the Next process spends from the same windows as /v1", async () => {
    const { key } = await newKey({ limitMinute: 3, limitDay: 100 });
    expect((await v1("127.0.0.12", key)).status).toBe(200);
    const viaMcp = await mcpCall("127.0.0.12", key);
    expect(viaMcp.status).toBe(200);
    expect(viaMcp.body).toContain("1 of 3 requests left this minute");
    expect((await v1("127.0.0.12", key)).status).toBe(200);
    const refused = await v1("127.0.0.12", key);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.code).toBe("rate_limited");
    const mcpRefused = await mcpCall("127.0.0.12", key);
    expect(mcpRefused.body).toMatch(/rate_limited|rate limit/i);
  });

  it("the client address is the socket's: an x-pmb-peer a client sends through to Next does not dodge the throttle", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 2; i++) statuses.push((await mcpCall("127.0.0.13", null, { "X-PMB-Peer": `203.0.113.${i}` })).status);
    expect(statuses).toEqual([...Array<number>(IP_LIMIT).fill(401), 429, 429]);
  });

  it("a key revoked in the portal is refused by /v1 on the very next request", async () => {
    const account = await p.signIn();
    const minted = await keyAction(p.base, "/portal/api/keys", account, { body: { name: "api-process" } });
    expect(minted.status).toBe(201);
    const key = minted.body.key!;
    expect((await v1("127.0.0.14", key)).status).toBe(200); // now in the API process's key cache
    const revoked = await keyAction(p.base, `/portal/api/keys/${minted.body.summary!.id}/revoke`, account);
    expect(revoked.status).toBe(200);
    const after = await v1("127.0.0.14", key);
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body).error.code).toBe("invalid_api_key");
  });

  it("/v1 keeps answering, windows intact, while the Next process is killed and started again", async () => {
    const { key } = await newKey({ limitMinute: 100, limitDay: 1000 });
    const { revocationReach } = await import("@/lib/keys/instances");
    expect(await revocationReach()).toMatch(/^1 running server instance\(s\) of this database use no Redis/);
    expect((await v1("127.0.0.15", key)).headers["x-ratelimit-remaining"]).toBe("99");
    const [next] = children(server.process.pid!);
    expect(next).toBeGreaterThan(0);
    process.kill(next!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 100));
    const during = await v1("127.0.0.15", key);
    expect(during.status).toBe(200);
    expect(during.headers["x-ratelimit-remaining"]).toBe("98");
    // Pages come back once a new Next process listens (503 `unavailable` until then).
    let page = 0;
    for (let waited = 0; page !== 200 && waited < 240; waited++) {
      const res = await fetch(`${server.baseUrl}/docs`);
      page = res.status;
      const body = await res.text();
      if (page !== 200) {
        expect(page).toBe(503);
        expect(JSON.parse(body).error.code).toBe("unavailable");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    expect(page).toBe(200);
    const [restarted] = children(server.process.pid!);
    expect(restarted).not.toBe(next);
    expect(server.output()).toContain("the Next process exited (SIGKILL); starting another");
    // Still one instance in the registry the operator CLI reads: the API process registers it,
    // so a Next process that died leaves no row claiming a running instance without Redis.
    expect(await revocationReach()).toMatch(/^1 running server instance\(s\) of this database use no Redis/);
  });
});
