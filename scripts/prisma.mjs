#!/usr/bin/env node
// @ts-check
// Runs the Prisma CLI with the datasource variable it insists on seeing. In embedded mode
// (DATABASE_URL unset) the CLI gets a placeholder and prisma.config.ts picks PGlite.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.DATABASE_URL) {
  env.DATABASE_URL = "postgresql://embedded@localhost/pglite";
  env.PRISMA_EMBEDDED = "1";
}
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
