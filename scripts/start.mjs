#!/usr/bin/env node
// @ts-check
// `npm start`: checks the database, migrates it, builds when the build is missing or out of
// date, then serves the production server on PORT (default 3000).
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBuild, serverCommand, serverEnv } from "./lib/build.mjs";
import { pendingMigrations, reachPostgres } from "./lib/database.mjs";

process.chdir(path.resolve(path.dirname(new URL(import.meta.url).pathname), ".."));
const port = process.env.PORT || "3000";
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

const env = serverEnv({ PORT: port });
/** @type {string[]} */
let command = [];
try {
  command = await serverCommand(env);
} catch (error) {
  fail(/** @type {Error} */ (error).message);
}
const server = spawn(process.execPath, command, { stdio: "inherit", env: /** @type {NodeJS.ProcessEnv} */ (env) });
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
