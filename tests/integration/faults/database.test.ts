import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { freePort, startServer, type RunningServer } from "../support/server";
import { mintKey, ownDatabase, startProxy, tempDataDir, timed, type Proxy } from "./support";

// PostgreSQL behind a TCP proxy this test closes: the database then refuses connections.
let database: Awaited<ReturnType<typeof ownDatabase>>;
let proxy: Proxy;
let server: RunningServer;
let dataDir: string;
let directEnv: Record<string, string>;

beforeAll(async () => {
  database = await ownDatabase("dbdown");
  dataDir = tempDataDir("dbdown");
  const pgPort = Number(new URL(database.url).port || 5432);
  proxy = await startProxy(pgPort, await freePort());
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  directEnv = { DATABASE_URL: database.url, REDIS_URL: "" };
  server = await startServer({
    DATABASE_URL: viaProxy.toString(),
    REDIS_URL: "",
    DATA_DIR: dataDir,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    METERING_FLUSH_MS: "200",
  });
});

afterAll(async () => {
  await proxy?.open().catch(() => undefined);
  await server?.stop();
  await proxy?.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("database refusing connections", () => {
  it("data endpoints, downloads and healthz answer 503 unavailable with Retry-After; service returns when the database does", async () => {
    const keys = [mintKey(directEnv), mintKey(directEnv), mintKey(directEnv), mintKey(directEnv)];
    const paths = ["/v1/indices", "/v1/volatility", "/downloads/2026-01/manifest.json", "/v1/indices/PMI-ANY/latest"];
    expect((await timed(`${server.baseUrl}/v1`, { headers: { Authorization: `Bearer ${keys[0]}` } })).res.status).toBe(
      200,
    );

    await proxy.close();
    for (const [i, p] of paths.entries()) {
      // Keys this instance has not resolved yet, and one it has: both need the database.
      for (const key of [keys[(i + 1) % keys.length]!, keys[0]!]) {
        const { res, text } = await timed(`${server.baseUrl}${p}`, { headers: { Authorization: `Bearer ${key}` } });
        expect(res.status, `${p}: ${text}`).toBe(503);
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        const body = JSON.parse(text);
        expect(body.error.code).toBe("unavailable");
        expect(body.error.requestId).toBe(res.headers.get("x-request-id"));
        expect(text).not.toMatch(/ECONNREFUSED|at .*\.js|prisma/i);
      }
    }
    const health = await timed(`${server.baseUrl}/healthz`);
    expect(health.res.status).toBe(503);
    expect(JSON.parse(health.text).database.status).toBe("unavailable");

    await proxy.open();
    await waitFor(
      "keyed requests answered once the database is back",
      async () =>
        (await timed(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${keys[1]}` } })).res
          .status === 200,
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    expect(server.output()).not.toMatch(/(\n|\\n)\s+at .*\(/); // no stack trace logged (a JSON log line escapes its newlines)
  }, 300_000);
});
