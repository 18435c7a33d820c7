import { spawnSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { createDatabase, dropDatabase, uniqueName } from "./support/pg";
import { startServer, type RunningServer } from "./support/server";

// One fresh PostgreSQL database per run, migrated with the Prisma CLI exactly as `npm start`
// does, and two server instances sharing it and Redis, so cross-instance rules are testable.
export default async function setup(project: TestProject) {
  const name = uniqueName("pmb_it");
  const url = await createDatabase(name);
  const servers: RunningServer[] = [];
  try {
    const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" });
    if (migrate.status !== 0) throw new Error(`migration failed:\n${migrate.stdout}\n${migrate.stderr}`);
    const redisPrefix = `${name}:`;
    const env = { DATABASE_URL: url, REDIS_URL: process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379", REDIS_PREFIX: redisPrefix, DEMO_MARKET: "1", ENGINE_SCHEDULER: "0" };
    servers.push(await startServer(env));
    servers.push(await startServer(env));
    project.provide("databaseUrl", url);
    project.provide("baseUrls", servers.map((s) => s.baseUrl));
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(name);
    throw error;
  }
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropDatabase(name);
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    baseUrls: string[];
  }
}
