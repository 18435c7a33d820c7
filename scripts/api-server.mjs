#!/usr/bin/env node
// @ts-check
// The production server with /v1 in a process of its own (API_PROCESS=1; lib/server/api-process.ts),
// run by scripts/start.mjs as `node --conditions=react-server --enable-source-maps scripts/api-server.mjs`.
// Its code is the bundle the build writes (scripts/lib/api-bundle.mjs): no Next, no TypeScript loader.
// First: keeps process.nextTick fast for the life of the process (why: in the module).
import "./lib/tick-shape.mjs";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { API_BUNDLE } from "./lib/api-bundle.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bundle = path.join(root, API_BUNDLE);
if (!fs.existsSync(bundle)) {
  console.error(`${API_BUNDLE} is missing: build first (npm run build, or npm start, which builds when needed)`);
  process.exit(1);
}
/** @type {{ serveApiProcess(root: string): Promise<void> }} */
const api = await import(pathToFileURL(bundle).href);
api.serveApiProcess(root).catch((/** @type {Error} */ error) => {
  console.error(`[api-process] ${error.stack ?? error.message}`);
  process.exit(1);
});
