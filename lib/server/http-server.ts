import cluster from "node:cluster";
import http from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { clientError, connectRequest, createFront, dispatch, expectationFailed } from "@/lib/api/node-adapter";
import { FRONT_REQUEST_ID, newRequestId } from "@/lib/api/shell";
import { config, type Config } from "@/lib/config";
import { boot } from "@/lib/server/boot";
import { root } from "@/lib/root";
import { answerPageOutageWith503 } from "@/lib/server/page-outage";

// The production server, one kind of process: a node:http server whose front
// (lib/api/node-adapter.ts) answers /v1 itself and hands every other request to Next through
// Next's public request handler. The client address the API throttles on is the socket's
// (`x-pmb-peer`, written here for Next), never a header the client sent.
//
// WEB_CONCURRENCY=N (N > 1) runs N such servers as a node:cluster sharing the port. They are
// separate instances exactly as several machines would be, so it needs what several instances
// need: DATABASE_URL (PGlite is one process's database) and REDIS_URL (shared limits). The
// primary serves nothing; it starts the workers and starts another when one dies.
//
// This module reaches scripts/server.mjs as the esbuild bundle the build writes
// (scripts/lib/api-bundle.mjs). Next compiles its own copy of lib/ for pages and route files;
// the two copies share the process's collaborators (database, limiter, caches) through the one
// composition root (lib/root.ts).

/** How long a stopping server waits for its requests and its shutdown work before it exits. */
const STOP_BUDGET_MS = 10_000;

/**
 * Runs the server for the build in `dir`: one server, or with WEB_CONCURRENCY > 1 in a cluster's
 * primary, the workers, each running `workerScript` (scripts/server.mjs).
 */
export async function serve(dir: string, workerScript: string): Promise<void> {
  let c: Config;
  try {
    c = config();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  if (c.WEB_CONCURRENCY > 1 && cluster.isPrimary) return runPrimary(c, workerScript);
  await serveOne(dir, c);
}

function address(c: Config): string {
  return `http://${c.HOST === "0.0.0.0" ? "localhost" : c.HOST}:${c.PORT}`;
}

/** The cluster's primary: N workers, another started for each that dies, all stopped on a signal. */
function runPrimary(c: Config, workerScript: string): void {
  if (c.embedded || !c.REDIS_URL) {
    console.error("WEB_CONCURRENCY > 1 needs DATABASE_URL and REDIS_URL: the instances share the database and the rate-limit windows");
    process.exit(2);
  }
  // Each worker accepts its own connections from the shared socket: a worker that dies takes
  // only the connections it accepted (the kernel resets them), never one the primary had
  // accepted and was still handing over (Node's round-robin default).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: workerScript, args: [] });
  let stopping = false;
  let ready = 0;
  const fork = (replacing?: number) => {
    const worker = cluster.fork();
    worker.on("message", (m) => {
      if (m !== "ready") return;
      if (replacing !== undefined) console.log(`worker ${worker.process.pid} ready (replacing ${replacing})`);
      else if (++ready === c.WEB_CONCURRENCY) console.log(`ready on ${address(c)} (${c.WEB_CONCURRENCY} workers)`);
    });
  };
  for (let i = 0; i < c.WEB_CONCURRENCY; i++) fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork(worker.process.pid);
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
      setTimeout(() => process.exit(0), STOP_BUDGET_MS + 2000).unref();
    });
  }
}

/** One server: Next, boot (database, journals, background work), then the listener. */
async function serveOne(dir: string, c: Config): Promise<void> {
  const app = next({ dev: false, dir, hostname: c.HOST, port: c.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();
  // Before the first request: the database, and the windows and usage a previous life left
  // (the start-up backfill goes on in the background).
  await boot();

  const front = createFront();
  /** Next reads the client address from `x-pmb-peer`, which only this server writes. */
  const toNext = (req: http.IncomingMessage, res: http.ServerResponse, peer: string) => {
    req.headers["x-pmb-peer"] = peer;
    // Every answer carries a request id; the app's /v1 and MCP shell answers with the same one.
    const requestId = newRequestId();
    req.headers[FRONT_REQUEST_ID] = requestId;
    res.setHeader("X-Request-Id", requestId);
    answerPageOutageWith503(req, res);
    void handle(req, res);
  };
  // requireHostHeader off: the front answers a missing Host in the error shape (Node's own 400 has no body).
  const server = http.createServer({ requireHostHeader: false }, (req, res) => dispatch(front, req, res, req.socket.remoteAddress ?? "", toNext));
  server.on("clientError", (error: Error, socket: Duplex) => clientError(error, socket));
  server.on("connect", connectRequest);
  server.on("checkExpectation", expectationFailed);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(c.PORT, c.HOST, resolve));
  if (cluster.isWorker) process.send?.("ready");
  else console.log(`ready on ${address(c)}`);

  // Stop accepting; close keep-alive connections as they fall idle; once the requests under way
  // are answered (or after half the budget), let the app flush usage and close the database; exit.
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(0), STOP_BUDGET_MS).unref();
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      void Promise.race([closed, new Promise((resolve) => setTimeout(resolve, STOP_BUDGET_MS / 2))])
        .then(() => clearInterval(idle))
        .then(() => root().shutdown.run())
        .finally(() => process.exit(0));
    });
  }
}
