import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startServer, type RunningServer } from "../support/server";
import { keysCli, mintKey, ownDatabase, sql, startRedis, stopProcess, tempDataDir, timed } from "./support";

// `keys revoke` run where Redis cannot be reached (here: the tool's REDIS_URL names a closed port)
// while the running server's own Redis connection is fine: the key is revoked in the database,
// which carries the news instead (each server reads the newest revocation every 5 s and
// records that it applied it); the command reports success only once every running server has
// confirmed, so the key is refused on the very next request. A running instance that does not
// confirm (played by a row of service_instances that stays alive and never confirms) makes the
// command say so and exit 3, naming it.
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
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_PREFIX: "pmb-revoke:",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    DATA_DIR: dataDir,
  };
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
  it("reports success only once every running server confirmed: the key is refused on the very next request", async () => {
    const key = mintKey(env);
    expect((await get(key)).res.status).toBe(200); // resolved and cached by the server

    const closed = await freePort();
    const r = keysCli(["revoke", "--key", key], { ...env, REDIS_URL: `redis://127.0.0.1:${closed}` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^revoked svc_live_/);
    expect(r.stderr).toMatch(
      /revoked in the database; Redis is not reachable now, so it was carried by the database, and every running server confirmed it/,
    );
    expect(r.stderr).not.toMatch(/Redis is not connected|\n\s+at /);

    const { res, text } = await get(key);
    expect(res.status).toBe(401);
    expect(JSON.parse(text).error.code).toBe("invalid_api_key");
  }, 120_000);

  it("says the revocation is not in effect everywhere, names the instance, and exits 3 when a running instance does not confirm", async () => {
    const key = mintKey(env);
    // An instance alive (seen now) that never confirms a revocation: its database watch is stuck.
    await sql(
      database.url,
      `INSERT INTO service_instances (id, "redisPrefix", host, pid, "seenAt") VALUES ('deadbeef-stuck-instance', 'pmb-revoke:', 'stuck-host', 4242, now() + interval '1 minute')`,
    );
    try {
      const closed = await freePort();
      const r = keysCli(["revoke", "--key", key], { ...env, REDIS_URL: `redis://127.0.0.1:${closed}` });
      expect(r.status, r.stderr).toBe(3);
      expect(r.stdout).toMatch(/^revoked svc_live_/);
      expect(r.stderr).toMatch(
        /NOT yet in effect everywhere.*1 running server\(s\) did not confirm it within \d+ s: deadbeef \(stuck-host pid 4242/s,
      );
    } finally {
      await sql(database.url, `DELETE FROM service_instances WHERE id = 'deadbeef-stuck-instance'`);
    }
  }, 120_000);
});
