import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type RunningServer } from "../support/server";
import { uniqueName } from "../support/pg";
import { mintKey, ownDatabase, sql, tempDataDir } from "../faults/support";
import { testRedisUrl } from "../../support/test-env";
import { waitFor } from "../../support/wait-for";

// What an operator watches: /livez (touches no dependency), /readyz (dependencies and start-up
// work), /metrics (Prometheus, loopback or the operator token only), JSON log lines with an access
// log and no secret, and the live instances (dead rows pruned).
const METRICS_TOKEN = "operator-metrics-token-0123456789";
let database: Awaited<ReturnType<typeof ownDatabase>>;
let server: RunningServer;
let env: Record<string, string>;
let key: string;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  database = await ownDatabase("ops");
  const dataDir = tempDataDir("ops");
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl,
    REDIS_PREFIX: `${uniqueName("f_ops")}:`,
    DATA_DIR: dataDir,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: "1000000",
    METRICS_TOKEN,
  };
  server = await startServer(env);
  key = mintKey(env);
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  for (const c of cleanups) await c();
});

/** The server's stdout lines, each parsed as JSON (a line that is not JSON fails the test). */
const logLines = () =>
  server
    .output()
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a log line that is not JSON: ${l.slice(0, 300)}`);
      }
    });

describe("probes", () => {
  it("/livez and /readyz answer 200 on a serving instance; /healthz keeps its shape", async () => {
    const live = await fetch(`${server.baseUrl}/livez`);
    expect(live.status).toBe(200);
    expect(live.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await live.json()).toMatchObject({ status: "ok" });
    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: "ready",
      checks: { database: "ok", redis: "ok", backfill: expect.any(String), stopping: false },
    });
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", database: { status: "ok" } });
  });

  it("with the database unreachable: /livez 200 (it touches no dependency), /readyz and /healthz 503 naming the database", async () => {
    const closed = await freePort();
    const down = await startServer(
      {
        ...env,
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${closed}/none`,
        REDIS_PREFIX: `${uniqueName("f_ops_down")}:`,
      },
      180_000,
      503,
    );
    try {
      expect((await fetch(`${down.baseUrl}/livez`)).status).toBe(200);
      const ready = await fetch(`${down.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await ready.json()).toMatchObject({ status: "unavailable", checks: { database: "unavailable" } });
      expect((await fetch(`${down.baseUrl}/healthz`)).status).toBe(503);
      // The image's HEALTHCHECK (liveness) passes meanwhile: the outage marks no container unhealthy.
      expect(dockerHealthcheck(down.port).status).toBe(0);
    } finally {
      await down.stop();
    }
  }, 200_000);
});

/** The Dockerfile's HEALTHCHECK command (`CMD node -e "..."`), run as Docker runs it in the container, on `port`. */
function dockerHealthcheck(port: number) {
  const dockerfile = fs.readFileSync("Dockerfile", "utf8").replace(/\\\n\s*/g, " ");
  const script = /^HEALTHCHECK .*? CMD node -e "(.*)"$/m.exec(dockerfile)?.[1];
  if (!script) throw new Error("no HEALTHCHECK CMD node -e in the Dockerfile");
  return spawnSync(process.execPath, ["-e", script], { env: { ...process.env, PORT: String(port) }, timeout: 10_000 });
}

describe("the image's HEALTHCHECK", () => {
  it("passes on a serving instance and fails when nothing answers on the port", async () => {
    expect(dockerHealthcheck(server.port).status).toBe(0);
    expect(dockerHealthcheck(await freePort()).status).toBe(1);
  });
});

describe("/metrics", () => {
  it("serves Prometheus text to loopback: request durations by route template, rate limits, key cache, database, Redis, usage flush, back-calculation, Node's defaults", async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (await fetch(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } })).status,
      ).toBe(200);
    expect(
      (await fetch(`${server.baseUrl}/v1/indices/NOPE-X/latest`, { headers: { Authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(404);
    const res = await fetch(`${server.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      /^http_server_request_duration_seconds_count\{[^}]*http_route="\/v1\/indices"[^}]*http_response_status_code="200"[^}]*\} [3-9]/m,
    );
    expect(text).toMatch(
      /^http_server_request_duration_seconds_count\{[^}]*http_route="\/v1\/indices\/\{ticker\}\/latest"[^}]*http_response_status_code="404"/m,
    );
    expect(text).not.toMatch(/NOPE-X/); // routes are templates, never raw paths
    expect(text).toMatch(/^pmb_rate_limit_decisions_total\{[^}]*window="key",decision="allowed"/m);
    expect(text).toMatch(/^pmb_key_cache_lookups_total\{[^}]*result="(hit|miss)"/m);
    expect(text).toMatch(/^pmb_db_query_duration_seconds_count\{[^}]*outcome="ok"/m);
    expect(text).toMatch(/^pmb_redis_command_duration_seconds_count\{[^}]*outcome="ok"/m);
    expect(text).toMatch(/^pmb_usage_flush_backlog_requests\{/m);
    expect(text).toMatch(/^pmb_backfill_hours_done\{/m);
    expect(text).toMatch(/^process_resident_memory_bytes\{/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{/m);
    expect(text).toMatch(/service_instance_id="[0-9a-f-]{36}"/);
  });

  it("every family the server exposes, Node's defaults aside, is listed in the README's metrics table", async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const families = [...text.matchAll(/^# TYPE (\S+) \S+$/gm)]
      .map((m) => m[1]!)
      .filter((name) => !/^(process|nodejs)_/.test(name));
    expect(families).toContain("pmb_venue_requests_total");
    expect(families).toContain("pmb_engine_hour_lag_seconds");
    const readme = fs.readFileSync("README.md", "utf8");
    const table = readme.slice(readme.indexOf("### Metrics"), readme.indexOf("### Logs"));
    expect(families.filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });

  it("is never public: a request that came through a proxy is refused 403 in the error shape; the operator token opens it", async () => {
    const proxied = await fetch(`${server.baseUrl}/metrics`, { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
    expect(((await proxied.json()) as { error: { code: string; message: string } }).error.message).toMatch(
      /loopback.*METRICS_TOKEN/,
    );
    const wrong = await fetch(`${server.baseUrl}/metrics`, {
      headers: { "X-Forwarded-For": "203.0.113.9", Authorization: "Bearer not-the-token-at-all-000" },
    });
    expect(wrong.status).toBe(403);
    const withToken = await fetch(`${server.baseUrl}/metrics`, {
      headers: { "X-Forwarded-For": "203.0.113.9", Authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toMatch(/^http_server_request_duration_seconds_bucket/m);
  });
});

describe("logs", () => {
  it("every line is JSON with time, level, instance and pid; an access line per answer with request id, route, status and duration; never a key", async () => {
    const res = await fetch(`${server.baseUrl}/v1/indices?key=${key}`, {
      headers: { Authorization: `Bearer ${key}`, Cookie: "authjs.session-token=secret-cookie-value" },
    });
    const requestId = res.headers.get("x-request-id");
    const access = await waitFor("the access line", () =>
      logLines().find((l) => l.msg === "request" && l.requestId === requestId),
    );
    expect(access).toMatchObject({
      level: "info",
      route: "/v1/indices",
      method: "GET",
      status: res.status,
      pid: server.process.pid,
    });
    expect(typeof access.durationMs).toBe("number");
    expect(access.instance).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(access.time as string).toISOString()).toBe(access.time);
    for (const line of logLines()) {
      expect(line).toHaveProperty("time");
      expect(line).toHaveProperty("level");
      expect(line).toHaveProperty("instance");
      expect(line).toHaveProperty("pid");
    }
    expect(server.output()).not.toContain(key);
    expect(server.output()).not.toContain(key.slice(9, 30));
    expect(server.output()).not.toContain("secret-cookie-value");
  });
});

describe("instances", () => {
  it("`npm run instances -- list` shows the running server; a dead instance's row is pruned", async () => {
    const { instance } = (await (await fetch(`${server.baseUrl}/livez`)).json()) as { instance: string };
    await sql(
      database.url,
      `INSERT INTO service_instances (id, "redisPrefix", "seenAt") VALUES ('dead-instance-row', NULL, now() - interval '10 minutes')`,
    );
    const list = () =>
      spawnSync(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/instances.ts", "list"],
        { env: { ...process.env, ...env }, encoding: "utf8" },
      );
    const r = list();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(instance);
    expect(r.stdout).toContain(`\t${server.process.pid}\t`);
    expect(r.stdout).not.toContain("dead-instance-row");
    // The running server's heartbeat prunes rows of instances not seen for a while.
    await waitFor(
      "the dead row pruned",
      async () =>
        (await sql(database.url, `SELECT id FROM service_instances WHERE id = 'dead-instance-row'`)).length === 0,
      { timeoutMs: 40_000 },
    );
  }, 60_000);
});
