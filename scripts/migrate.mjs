#!/usr/bin/env node
// @ts-check
// `npm run db:migrate`: applies prisma/migrations. With DATABASE_URL through the Prisma CLI;
// in the embedded default through the in-process migrator (the server does the same at start).
import { spawnSync } from "node:child_process";
import { reachPostgres } from "./lib/database.mjs";

const url = process.env.DATABASE_URL;
if (url) {
  const reach = await reachPostgres(url);
  if (!reach.ok) {
    console.error(`db:migrate: ${reach.message}`);
    process.exit(1);
  }
  const r = spawnSync(process.execPath, ["scripts/prisma.mjs", "migrate", "deploy"], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
const r = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/migrate-embedded.ts"], {
  stdio: "inherit",
});
process.exit(r.status ?? 1);
