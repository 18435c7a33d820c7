import { spawnSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { createDatabase, dropDatabase, uniqueName } from "./support/pg";
import { deleteRedisPrefix } from "./support/redis";
import { startServer, type RunningServer } from "./support/server";
import { testRedisUrl } from "../support/test-env";

// One fresh PostgreSQL database per run, migrated with the Prisma CLI exactly as `npm start`
// does, and two server instances sharing it and Redis, so cross-instance rules are testable.
export default async function setup(project: TestProject) {
  const name = uniqueName("pmb_it");
  const url = await createDatabase(name);
  const servers: RunningServer[] = [];
  try {
    const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
      env: { ...process.env, DATABASE_URL: url },
      encoding: "utf8",
    });
    if (migrate.status !== 0) throw new Error(`migration failed:\n${migrate.stdout}\n${migrate.stderr}`);
    const redisPrefix = `${name}:`;
    const redisUrl = testRedisUrl;
    // Every test file calls these two servers from 127.0.0.1, so the per-address budget is set out of
    // reach: whether it is spent must not depend on the order the files run in. The throttle's own
    // tests start servers of their own with small limits (api/faults, api/requests).
    const env = {
      DATABASE_URL: url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      DEMO_MARKET: "1",
      ENGINE_SCHEDULER: "0",
      METERING_FLUSH_MS: "200",
      AUTH_SECRET: `it-secret-${name}`,
      IP_LIMIT_MINUTE: "1000000",
    };
    // The first backfills the demo (minutes on a busy machine); the second finds it done.
    servers.push(await startServer(env, 600_000));
    servers.push(await startServer(env, 600_000));
    project.provide("databaseUrl", url);
    project.provide("redisUrl", redisUrl);
    project.provide("redisPrefix", redisPrefix);
    project.provide(
      "baseUrls",
      servers.map((s) => s.baseUrl),
    );
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(name);
    throw error;
  }
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(name);
    await deleteRedisPrefix(testRedisUrl, `${name}:`).catch(() => undefined);
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    redisPrefix: string;
    baseUrls: string[];
  }
}
