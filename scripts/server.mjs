#!/usr/bin/env node
// @ts-check
// The production server (lib/server/http-server.ts): a node:http front that answers /v1 and hands
// every other request to Next. Its code is the bundle the build writes (scripts/lib/api-bundle.mjs):
// plain Node, no TypeScript loader at run time. scripts/start.mjs runs it in its own process after
// its checks; with WEB_CONCURRENCY > 1 each cluster worker runs this file.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SERVER_BUNDLE } from "./lib/api-bundle.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bundle = path.join(root, SERVER_BUNDLE);
if (!fs.existsSync(bundle)) {
  console.error(`${SERVER_BUNDLE} is missing: build first (npm run build, or npm start, which builds when needed)`);
  process.exit(1);
}
/** @type {{ serve(dir: string, workerScript: string): Promise<void> }} */
const server = await import(pathToFileURL(bundle).href);
await server.serve(root, fileURLToPath(import.meta.url)).catch((/** @type {Error} */ error) => {
  console.error(`[server] ${error.stack ?? error.message}`);
  process.exit(1);
});
