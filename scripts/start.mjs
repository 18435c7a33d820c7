#!/usr/bin/env node
// @ts-check
// `npm start`: checks the database, migrates it, builds when the build is missing or out of
// date, then runs the production server (scripts/server.mjs) in this same process, on PORT
// (default 3000).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBuild, serverEnv } from "./lib/build.mjs";
import { pendingMigrations, reachPostgres } from "./lib/database.mjs";

process.chdir(path.resolve(path.dirname(new URL(import.meta.url).pathname), ".."));
/** @param {string} line @returns {never} */
const fail = (line) => {
  console.error(`npm start: ${line}`);
  process.exit(1);
};

const url = process.env.DATABASE_URL;
if (url) {
  const reach = await reachPostgres(url);
  if (!reach.ok) fail(reach.message);
  if ((await pendingMigrations(url)).length > 0) {
    const r = spawnSync(process.execPath, ["scripts/prisma.mjs", "migrate", "deploy"], { stdio: "inherit" });
    if (r.status !== 0) fail("migrating the database failed (see above)");
  }
}

try {
  ensureBuild();
} catch (error) {
  fail(/** @type {Error} */ (error).message);
}

// The server reads its configuration (lib/config.ts) from this process's environment.
Object.assign(process.env, serverEnv());
await import("./server.mjs");
