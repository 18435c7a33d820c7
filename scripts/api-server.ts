// The production server with /v1 in a process of its own (API_PROCESS=1; lib/server/api-process.ts).
// Run by scripts/start.mjs as `node --conditions=react-server --import tsx scripts/api-server.ts`.
import path from "node:path";
import { serveApiProcess } from "@/lib/server/api-process";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
serveApiProcess(root).catch((error: Error) => {
  console.error(`[api-process] ${error.stack ?? error.message}`);
  process.exit(1);
});
