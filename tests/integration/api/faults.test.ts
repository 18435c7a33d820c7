import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { expectRateHeaders, newKey, applyRunEnvironment } from "../support/api";
import { freePort, startServer, type RunningServer } from "../support/server";
import { startRedis, stopProcess } from "../faults/support";
import { requestFrom, type WireAnswer } from "./from-address";
import { inject } from "vitest";

describe("per-address throttle (ip_rate_limited)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    applyRunEnvironment();
    server = await startServer({
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: inject("redisUrl"),
      REDIS_PREFIX: `${inject("redisPrefix")}throttle:`,
      IP_LIMIT_MINUTE: "5",
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("counts valid keyed traffic and refuses with 429, Retry-After and no X-RateLimit-* headers", async () => {
    const { key } = await newKey();
    const statuses: number[] = [];
    let last: WireAnswer | null = null;
    // From an address of its own, so the budget of 5 is this test's alone.
    for (let i = 0; i < 7; i++) {
      last = await requestFrom("127.0.0.4", server.port, "/v1/downloads", {
        headers: { Authorization: `Bearer ${key}` },
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const body = JSON.parse(last!.body);
    expect(body.error.code).toBe("ip_rate_limited");
    expect(Number(last!.headers["retry-after"])).toBeGreaterThan(0);
    expect(body.error.requestId).toBe(last!.headers["x-request-id"]);
    expectRateHeaders({ headers: new Headers(last!.headers as Record<string, string>) }, false);
  });

  it("a client-sent X-Forwarded-For does not dodge the throttle", async () => {
    // Its own address and budget: five requests, each claiming another client, then refused.
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (await requestFrom("127.0.0.5", server.port, "/v1", { headers: { "X-Forwarded-For": `203.0.113.${i}` } }))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });
});

describe("database down", () => {
  it("the API answers unavailable (503) with Retry-After, never a stack trace", async () => {
    const { key } = await newKey();
    const down = await startServer(
      {
        DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing",
        REDIS_URL: "",
        DEMO_MARKET: "0",
        ENGINE_SCHEDULER: "0",
      },
      60_000,
      503,
    );
    try {
      const res = await fetch(`${down.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBeTruthy();
      const body = await res.json();
      expect(body.error.code).toBe("unavailable");
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|at .*\.js/);
    } finally {
      await down.stop();
    }
  });
});

describe("Redis down", () => {
  // A Redis of this test's own (tests/integration/faults/support.ts), so stopping it touches nothing else of the run.

  it("a keyed request answers unavailable (503, Retry-After) while Redis is gone, and is served again once it is back", async () => {
    applyRunEnvironment();
    const port = await freePort();
    let redis = await startRedis(port);
    const server = await startServer({
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_PREFIX: `${inject("redisPrefix")}redis-down:`,
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
    });
    try {
      const { key } = await newKey();
      const get = () => fetch(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } });
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200); // a key the instance knows: the one-script path

      await stopProcess(redis);
      for (const res of [
        await get(),
        await fetch(`${server.baseUrl}/v1/indices`, { headers: { Authorization: "Bearer svc_live_unknown" } }),
      ]) {
        expect(res.status).toBe(503);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(res.headers.get("x-request-id")).toBeTruthy();
        const body = await res.json();
        expect(body.error.code).toBe("unavailable");
        expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|Connection is closed|at .*\.js/);
      }

      redis = await startRedis(port);
      const back = await waitFor("keyed requests answered again", async () => {
        const res = await get();
        return res.status === 200 && res;
      });
      expectRateHeaders(back, true);
    } finally {
      await server.stop();
      await stopProcess(redis);
    }
  }, 60_000);
});
