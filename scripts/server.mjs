#!/usr/bin/env node
// @ts-check
// The production server: Next.js behind a plain Node HTTP server, so the client address the
// API throttles on comes from the socket (`x-pmb-peer`), never from a header the client sent,
// and so /v1 is answered by the node:http adapter of lib/api without Next's router.
//
// Every request first meets the front (lib/api/node-adapter.ts), which instrumentation.ts
// publishes on a global symbol when Next loads the app: it answers bad paths, unknown methods,
// non-canonical paths and requests Node cannot parse in the API's error shape, and /v1 itself;
// the rest goes to Next. Until the front is published (the first moments of a start) requests wait.
//
// With API_PROCESS=1 this server runs as the child of the API process (lib/server/api-process.ts),
// which serves /v1 without Next: it then listens on PMB_PAGES_SOCKET instead of PORT, and the
// client address is the `x-pmb-peer` that process wrote from its own socket.
//
// WEB_CONCURRENCY=N (N > 1) runs N such servers as a node:cluster sharing the port, one per core.
// They are separate instances exactly as several machines would be, so it needs what several
// instances need: DATABASE_URL (PGlite is one process's database) and REDIS_URL (shared limits).
// First: keeps process.nextTick fast for the life of the process (why: in the module).
import "./lib/tick-shape.mjs";
import cluster from "node:cluster";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import next from "next";

/**
 * @typedef {(req: http.IncomingMessage, res: http.ServerResponse, peer: string) => boolean | Promise<boolean>} Front
 * @typedef {{ createFront(o: { direct: boolean }): Front;
 *   dispatch(front: Front, req: http.IncomingMessage, res: http.ServerResponse, peer: string,
 *     pass: (req: http.IncomingMessage, res: http.ServerResponse, peer: string) => void): void;
 *   clientError(error: Error, socket: import("node:stream").Duplex): void;
 *   connectRequest(req: http.IncomingMessage, socket: import("node:stream").Duplex): void }} HttpFront
 */

const FRONT = Symbol.for("pmb.http-front");
const FRONT_READY = Symbol.for("pmb.http-front.ready");

const dir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
// These are also in lib/config.ts's schema (which validates them when the app loads);
// the server needs them before the app exists.
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "0.0.0.0";
const workers = Number(process.env.WEB_CONCURRENCY || 1);
const direct = process.env.PMB_DIRECT_ROUTES !== "0";
// Set when the API process (lib/server/api-process.ts) runs this server as its child: listen on
// this Unix socket (in a directory only this user can open) instead of PORT.
const pagesSocket = process.env.PMB_PAGES_SOCKET || "";
const address = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`;

if (workers > 1 && cluster.isPrimary) {
  if (!Number.isInteger(workers) || workers > 64) {
    console.error(`WEB_CONCURRENCY must be a whole number from 1 to 64, got ${process.env.WEB_CONCURRENCY}`);
    process.exit(2);
  }
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    console.error("WEB_CONCURRENCY > 1 needs DATABASE_URL and REDIS_URL: the instances share the database and the rate-limit windows");
    process.exit(2);
  }
  let stopping = false;
  let ready = 0;
  const fork = () =>
    cluster.fork().on("message", (m) => {
      if (m === "ready" && ++ready === workers) console.log(`ready on ${address} (${workers} workers)`);
    });
  for (let i = 0; i < workers; i++) fork();
  cluster.on("exit", (worker, code) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${code}); starting another`);
    fork();
  });
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.once(signal, () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
      setTimeout(() => process.exit(0), 12_000).unref();
    });
  }
} else {
  await serve();
}

async function serve() {
  const app = next({ dev: false, dir, hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();

  const g = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis));
  /** @type {Promise<void>} */
  const published = new Promise((resolve) => {
    if (g[FRONT]) resolve();
    else g[FRONT_READY] = resolve;
  });
  /** @type {HttpFront | null} */
  let httpFront = null;
  /** @type {Front | null} */
  let front = null;
  // Should the app never publish it (a broken build), Next serves everything after a minute.
  const giveUp = new Promise((resolve) => setTimeout(resolve, 60_000).unref());
  giveUp.then(() => {
    if (!front) console.error("the node:http front was not published: Next's router serves every request");
  });
  published.then(() => {
    httpFront = /** @type {HttpFront} */ (g[FRONT]);
    front = httpFront.createFront({ direct });
  });

  /** Next reads the client address from `x-pmb-peer`, which only this server (or the API process) writes. */
  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} peer */
  const toNext = (req, res, peer) => {
    req.headers["x-pmb-peer"] = peer;
    void handle(req, res);
  };

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
  const serveRequest = (req, res) => {
    // Behind the API process, the peer is the one it read from its socket and wrote into the
    // request (over a socket only this user can open); else this socket's peer.
    const peer = pagesSocket ? String(req.headers["x-pmb-peer"] ?? "") : (req.socket.remoteAddress ?? "");
    if (!front || !httpFront) return toNext(req, res, peer);
    // The front answers at once when it had everything in memory (most /v1 requests).
    httpFront.dispatch(front, req, res, peer, toNext);
  };

  const server = http.createServer((req, res) => {
    if (front) serveRequest(req, res);
    else Promise.race([published, giveUp]).then(() => serveRequest(req, res));
  });
  server.on("clientError", (error, socket) => {
    if (httpFront) httpFront.clientError(error, socket);
    else socket.destroy();
  });
  server.on("connect", (req, socket) => {
    if (httpFront) httpFront.connectRequest(req, socket);
    else socket.destroy();
  });
  server.keepAliveTimeout = 65_000;
  const listening = () => {
    if (cluster.isWorker || pagesSocket) process.send?.("ready");
    else console.log(`ready on ${address}`);
  };
  if (pagesSocket) {
    fs.rmSync(pagesSocket, { force: true }); // left by a previous life that was killed
    server.listen(pagesSocket, listening);
    // The API process is gone (killed): nobody can reach this one any more.
    process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  } else server.listen(port, hostname, listening);
  warmUp(handle);

  // Stop accepting, let the app flush usage and close the database, then exit.
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.once(signal, () => {
      server.close();
      server.closeIdleConnections?.();
      const shutdown = /** @type {{ __pmbRunShutdown?: () => Promise<void> }} */ (globalThis).__pmbRunShutdown;
      Promise.resolve(typeof shutdown === "function" ? shutdown() : undefined).finally(() => process.exit(0));
      setTimeout(() => process.exit(0), 10_000).unref();
    });
  }
}

/**
 * Next loads the app (and runs instrumentation.ts, which publishes the front) on the first request
 * it handles. One request to /healthz through a private loopback listener of this process starts
 * that now, whichever worker of a cluster the public port would have given it to.
 * @param {(req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>} handle
 */
function warmUp(handle) {
  const private_ = http.createServer((req, res) => void handle(req, res));
  private_.listen(0, "127.0.0.1", () => {
    const where = private_.address();
    const port = where && typeof where === "object" ? where.port : 0;
    const req = http.get({ host: "127.0.0.1", port, path: "/healthz" }, (res) => {
      res.resume();
      res.on("end", () => private_.close());
    });
    req.on("error", () => private_.close());
  });
}
