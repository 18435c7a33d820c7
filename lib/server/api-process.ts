import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createProxyServer } from "http-proxy-3";
import { limiterHandlers } from "@/lib/api/limiter";
import { clientError, connectRequest, createFront, dispatch, writeResult } from "@/lib/api/node-adapter";
import { ApiError } from "@/lib/api/errors";
import { errorResult, newRequestId } from "@/lib/api/shell";
import { apiProcessRefusal, config } from "@/lib/config";
import { clearOwnReadCache, READ_CACHE_CLEAR } from "@/lib/data/memo";
import { closeDb, db, describeDbError } from "@/lib/db";
import { forgetKeys, KEYS_INVALIDATE } from "@/lib/keys/key-cache";
import { startDurability } from "@/lib/server/durability";
import { answerChild } from "@/lib/server/ipc";
import { installShutdown, onShutdown, runShutdown } from "@/lib/server/shutdown";

// The API process (how `npm start` runs wherever it can: `apiProcess` in lib/config.ts; API_PROCESS
// asks for it or against it): /v1 served by a Node process that never loads Next.js.
//
// Why: Next.js uses AsyncLocalStorage, which on Node 20 turns async hooks on for the whole
// process; every promise and every `process.nextTick` of Node's own HTTP code then pays for
// them, /v1 included. This process serves /v1 with the same node:http adapter and pipeline as
// scripts/server.mjs (lib/api/node-adapter.ts), and runs that server, with Next, as its child
// on a Unix socket: every other request (pages, portal, docs, /mcp, /healthz) is passed to it
// with the client's address in `x-pmb-peer`, as scripts/server.mjs itself passes them to Next.
//
// What the two share without Redis lives here, and the child reaches it over IPC
// (lib/server/ipc.ts): the rate-limit windows (so MCP, the portal's quota and sign-in spend from
// and show the windows /v1 spends from), the key cache (a revocation in the portal clears it
// before the portal answers) and the read cache (cleared after each engine tick). The database
// must be PostgreSQL: the embedded PGlite is one process's database.

interface Pages {
  /** Settles when the current child listens (at once when it already does). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/** The Next server (scripts/server.mjs) as a child on `socket`, started again when it dies. */
function startPages(root: string, socket: string): Pages {
  let child: ChildProcess | null = null;
  let stopping = false;
  let listening: Promise<void>;
  let restarts = 0;
  const spawn = () => {
    let resolve!: () => void;
    listening = new Promise((r) => (resolve = r));
    // Without this process's loader flags: Next runs as it does under scripts/server.mjs alone.
    const c = fork(path.join(root, "scripts/server.mjs"), [], {
      cwd: root,
      execArgv: [],
      env: { ...process.env, PMB_PAGES_SOCKET: socket, PMB_API_PARENT: "1", API_PROCESS: "0" },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = c;
    answerChild(c, {
      ...limiterHandlers(),
      [KEYS_INVALIDATE]: () => forgetKeys(),
      [READ_CACHE_CLEAR]: () => clearOwnReadCache(),
    });
    c.on("message", (m) => {
      if (m === "ready") resolve();
    });
    c.on("exit", (code, signal) => {
      if (stopping) return;
      console.error(`[api-process] the Next process exited (${signal ?? code}); starting another`);
      // A child that cannot start at all (a broken build) is retried at most once a few seconds.
      setTimeout(spawn, Math.min(5000, 250 * 2 ** Math.min(restarts++, 5))).unref();
    });
  };
  spawn();
  return {
    ready: () => listening,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        const c = child;
        if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
        c.once("exit", () => resolve());
        c.kill("SIGTERM");
      }),
  };
}

/** Starts the API process: database, journals, the Next child, then the public listener. */
export async function serveApiProcess(root: string): Promise<void> {
  const c = config();
  const refusal = apiProcessRefusal(c);
  if (refusal) {
    console.error(refusal);
    process.exit(2);
  }
  installShutdown();
  try {
    await db();
  } catch (error) {
    // Keeps answering: /v1 reports `unavailable` until the database is back.
    console.error(`[api-process] ${describeDbError(error)}`);
  }
  onShutdown(closeDb, 100);
  await startDurability();

  // A directory only this user can open: the socket in it is how requests reach Next, with
  // `x-pmb-peer` trusted.
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-pages-"));
  const socket = path.join(socketDir, "next.sock");
  const pages = startPages(root, socket);

  const proxy = createProxyServer({
    target: { socketPath: socket, host: "localhost", port: 0 },
    agent: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    // The path exactly as the client sent it (the front has checked it).
    toProxy: true,
    prependPath: false,
  });
  const unavailable = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (res.headersSent) return res.destroy();
    const error = new ApiError("unavailable", { message: "The site is starting or restarting; try again in a few seconds.", headers: { "Retry-After": "5" } });
    writeResult(req, res, errorResult(error, newRequestId()));
  };
  const toPages = (req: http.IncomingMessage, res: http.ServerResponse, peer: string) => {
    const ready = pages.ready();
    const wait = setTimeout(() => unavailable(req, res), 30_000);
    void ready.then(() => {
      if (res.headersSent || res.writableEnded) return;
      clearTimeout(wait);
      proxy.web(req, res, { headers: { "x-pmb-peer": peer } }, () => unavailable(req, res));
    });
  };

  const front = createFront({ direct: true });
  const server = http.createServer((req, res) => dispatch(front, req, res, req.socket.remoteAddress ?? "", toPages));
  server.on("clientError", clientError);
  server.on("connect", connectRequest);
  server.keepAliveTimeout = 65_000;
  const address = `http://${c.HOST === "0.0.0.0" ? "localhost" : c.HOST}:${c.PORT}`;
  server.listen(c.PORT, c.HOST, () => console.log(`ready on ${address} (API process; Next as its child)`));

  // Stop accepting, stop Next (it flushes its own usage), then flush ours and close the database.
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(0), 12_000).unref();
      server.close();
      server.closeIdleConnections();
      void pages
        .stop()
        .then(() => runShutdown())
        .finally(() => {
          fs.rmSync(socketDir, { recursive: true, force: true });
          process.exit(0);
        });
    });
  }
}
