import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { expectRateHeaders } from "../support/api";
import { freePort, startServer, type RunningServer } from "../support/server";
import { keysCli, mintKey, ownDatabase, startProxy, startRedis, stopProcess, timed } from "./support";

// A Redis of this file's own, stopped and restarted empty under two running instances.
let redisPort: number;
let redis: ChildProcess;
let servers: RunningServer[] = [];
let env: Record<string, string>;
let database: Awaited<ReturnType<typeof ownDatabase>>;

beforeAll(async () => {
  database = await ownDatabase("redis");
  redisPort = await freePort();
  redis = await startRedis(redisPort);
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_PREFIX: "pmb-faults:",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    EMAIL_SERVER: "smtp://127.0.0.1:1",
    AUTH_SECRET: "faults-redis-test-secret-0123456789",
  };
  servers = await Promise.all([startServer(env), startServer(env)]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await stopProcess(redis);
  await database?.drop();
});

const get = (server: RunningServer, key: string) =>
  timed(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } });

/** The operator CLI as the servers are configured (same database, Redis and prefix). */
function revoke(key: string): void {
  const r = keysCli(["revoke", "--key", key], env);
  if (r.status !== 0) throw new Error(`keys revoke failed: ${r.stderr}`);
}

async function until200(server: RunningServer, key: string): Promise<void> {
  await waitFor(
    `${server.baseUrl} to answer keyed requests again`,
    async () => (await get(server, key)).res.status === 200,
    {
      timeoutMs: 20_000,
      intervalMs: 250,
    },
  );
}

describe("Redis stopped", () => {
  it("keyed requests answer 503 unavailable with Retry-After at once, healthz names Redis, sign-in says so, and service returns without a restart", async () => {
    const key = mintKey(env);
    for (const s of servers) expect((await get(s, key)).res.status).toBe(200);

    await stopProcess(redis);
    const times: number[] = [];
    for (const s of servers) {
      for (const presented of [key, "svc_live_unknownkeyunknownkeyunknownkey0"]) {
        const { res, ms, text } = await get(s, presented);
        times.push(ms);
        expect(res.status).toBe(503);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        const body = JSON.parse(text);
        expect(body.error.code).toBe("unavailable");
        expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
        expect(text).not.toMatch(/ECONNREFUSED|Connection is closed|Stream isn't writeable|at .*\.js/);
      }
    }
    // Not a speed benchmark: the failure is the seconds-long wait of a queued command (0.7-15 s).
    expect(Math.max(...times)).toBeLessThan(1000);

    const health = await timed(`${servers[0]!.baseUrl}/healthz`);
    expect(health.res.status).toBe(503);
    expect(health.res.headers.get("retry-after")).toBeTruthy();
    const h = JSON.parse(health.text);
    expect(h.redis.status).toBe("unavailable");
    expect(h.database.status).toBe("ok");

    const link = await timed(`${servers[0]!.baseUrl}/api/auth/request-link`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=someone%40acme-widgets.com",
    });
    expect(link.res.status).toBe(503);
    expect(link.res.headers.get("retry-after")).toBeTruthy();
    expect(JSON.parse(link.text).error.message).toMatch(/temporarily unavailable/);

    redis = await startRedis(redisPort);
    for (const s of servers) await until200(s, key);
    const back = await get(servers[1]!, key);
    expectRateHeaders(back.res, true);
    expect((await timed(`${servers[0]!.baseUrl}/healthz`)).res.status).toBe(200);
  }, 60_000);
});

describe("revocation", () => {
  it("holds on the next request on every instance after Redis restarted empty", async () => {
    const key = mintKey(env);
    const other = mintKey(env);
    // Every instance has seen a revocation epoch, and caches `key`.
    revoke(other);
    for (const s of servers) {
      expect((await get(s, other)).res.status).toBe(401);
      expect((await get(s, key)).res.status).toBe(200);
      expect((await get(s, key)).res.status).toBe(200);
    }
    await stopProcess(redis);
    redis = await startRedis(redisPort);
    for (const s of servers) await until200(s, key);

    revoke(key);
    for (const s of servers) {
      const { res, text } = await get(s, key);
      expect(res.status).toBe(401);
      expect(JSON.parse(text).error.code).toBe("invalid_api_key");
    }
  }, 60_000);

  it("`keys revoke` without REDIS_URL, while servers use Redis, refuses and says why; with it, the key dies on the next request", async () => {
    const key = mintKey(env);
    for (const s of servers) expect((await get(s, key)).res.status).toBe(200);
    const cliEnv = { DATABASE_URL: env.DATABASE_URL!, REDIS_URL: "", REDIS_PREFIX: env.REDIS_PREFIX! };
    const refused = keysCli(["revoke", "--key", key], cliEnv);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/use Redis[\s\S]*REDIS_URL/);
    for (const s of servers) expect((await get(s, key)).res.status).toBe(200);

    const wrongPrefix = keysCli(["revoke", "--key", key], {
      ...cliEnv,
      REDIS_URL: env.REDIS_URL!,
      REDIS_PREFIX: "elsewhere:",
    });
    expect(wrongPrefix.status).toBe(1);
    expect(wrongPrefix.stderr).toMatch(/REDIS_PREFIX/);

    const revoked = keysCli(["revoke", "--key", key], { ...cliEnv, REDIS_URL: env.REDIS_URL! });
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(/^revoked /);
    for (const s of servers) expect((await get(s, key)).res.status).toBe(401);
  }, 60_000);
});

describe("Redis silent (a partition: the connection stays open, nothing answers)", () => {
  it("keyed requests answer 503 with Retry-After instead of hanging, and service returns when Redis answers again", async () => {
    const proxy = await startProxy(redisPort, await freePort());
    const quietEnv = { ...env, REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    const server = await startServer(quietEnv);
    try {
      const key = mintKey(quietEnv);
      expect((await get(server, key)).res.status).toBe(200);
      await proxy.silence();
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const { res, ms, text } = await get(server, key);
        times.push(ms);
        expect(res.status).toBe(503);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(JSON.parse(text).error.code).toBe("unavailable");
      }
      // Not a speed benchmark (`npm run bench:faults` measures it): a request must not wait on a
      // connection that no longer answers beyond its one command timeout.
      expect(Math.max(...times)).toBeLessThan(1000);
      expect(server.output()).toMatch(/no answer within the command timeout; reconnecting/);
      await proxy.open();
      await until200(server, key);
    } finally {
      await server.stop();
      await proxy.close();
    }
  }, 60_000);
});
