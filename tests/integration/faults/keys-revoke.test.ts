import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type RunningServer } from "../support/server";
import { keysCli, mintKey, ownDatabase, startRedis, stopProcess, tempDataDir, timed, until } from "./support";

// `keys revoke` run where Redis cannot be reached (here: the tool's REDIS_URL names a closed port)
// while the running server's own Redis connection is fine: the key is revoked in the database,
// the tool says the servers could not be told at once, and the server refuses the key by itself
// shortly after (it reads the newest revocation from the database), not at the end of the key
// cache's five minutes.
let database: Awaited<ReturnType<typeof ownDatabase>>;
let redis: ChildProcess;
let server: RunningServer;
let env: Record<string, string>;
let dataDir: string;

beforeAll(async () => {
  database = await ownDatabase("revoke");
  const redisPort = await freePort();
  redis = await startRedis(redisPort);
  dataDir = tempDataDir("revoke");
  env = { DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_PREFIX: "pmb-revoke:", DEMO_MARKET: "0", ENGINE_SCHEDULER: "0", DATA_DIR: dataDir };
  server = await startServer(env);
});

afterAll(async () => {
  await server?.stop();
  await stopProcess(redis);
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (key: string) => timed(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } });

describe("keys revoke while Redis is unreachable", () => {
  it("revokes, says what happened, exits 0, and the running server refuses the key within seconds", async () => {
    const key = mintKey(env);
    expect((await get(key)).res.status).toBe(200); // resolved and cached by the server

    const closed = await freePort();
    const r = keysCli(["revoke", "--key", key], { ...env, REDIS_URL: `redis://127.0.0.1:${closed}` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^revoked svc_live_/);
    expect(r.stderr).toMatch(/revoked in the database.*Redis is not reachable now.*when it reconnects to Redis.*within 5 s/s);
    expect(r.stderr).not.toMatch(/Redis is not connected|\n\s+at /);

    const refused = await until(async () => (await get(key)).res.status === 401, 30_000);
    expect(refused).toBeLessThan(10_000);
    const { res, text } = await get(key);
    expect(res.status).toBe(401);
    expect(JSON.parse(text).error.code).toBe("invalid_api_key");
  }, 120_000);
});
