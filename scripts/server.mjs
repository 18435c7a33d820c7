#!/usr/bin/env node
// The production server: Next.js behind a plain Node HTTP server, so the client address the
// API throttles on comes from the socket (`x-pmb-peer`), never from a header the client sent,
// and so /v1 is answered by its route handlers without Next's router (direct-routes.mjs).
//
// WEB_CONCURRENCY=N (N > 1) runs N such servers as a node:cluster sharing the port, one per core.
// They are separate instances exactly as several machines would be, so it needs what several
// instances need: DATABASE_URL (PGlite is one process's database) and REDIS_URL (shared limits).
import cluster from "node:cluster";
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import next from "next";
import { directRoutes } from "./direct-routes.mjs";

const dir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "0.0.0.0";
const workers = Number(process.env.WEB_CONCURRENCY || 1);
// Paths whose route handlers are served without Next's router: the API, and the benchmark's floor.
const DIRECT_PREFIXES = ["/v1", "/bench-floor"];
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
  const fork = () => cluster.fork().on("message", (m) => {
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
  // The API's route handlers, called without Next's router (scripts/direct-routes.mjs).
  let direct = null;
  try {
    direct = process.env.PMB_DIRECT_ROUTES === "0" ? null : directRoutes({ dir, prefixes: DIRECT_PREFIXES });
  } catch (error) {
    console.error(`direct routes are off, Next's router serves /v1: ${error?.message ?? error}`);
  }

  const server = http.createServer((req, res) => {
    req.headers["x-pmb-peer"] = req.socket.remoteAddress ?? "";
    if (!decodablePath(req.url ?? "/")) return badPath(req, res);
    if (!direct) return void handle(req, res);
    direct(req, res).then(
      (answered) => answered || handle(req, res),
      (error) => {
        console.error(`direct route ${req.method} ${req.url?.split("?")[0]}: ${error?.stack ?? error}`);
        if (!res.headersSent) handle(req, res);
        else res.destroy();
      },
    );
  });

  function decodablePath(url) {
    try {
      decodeURIComponent(url.split("?")[0]);
      return true;
    } catch {
      return false;
    }
  }

  // A path that is not valid percent-encoding never reaches the router (which would fail on it).
  function badPath(req, res) {
    const requestId = crypto.randomUUID();
    const base = (process.env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, "");
    const body = { error: { code: "error", message: "The request path is not valid percent-encoding.", docsUrl: `${base}/docs/limits`, requestId } };
    res.writeHead(400, { "Content-Type": "application/json; charset=utf-8", "X-Request-Id": requestId, "Cache-Control": "no-store" });
    res.end(JSON.stringify(body));
  }
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => {
    if (cluster.isWorker) process.send?.("ready");
    else console.log(`ready on ${address}`);
  });

  // Stop accepting, let the app flush usage and close the database, then exit.
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.once(signal, () => {
      server.close();
      server.closeIdleConnections?.();
      const shutdown = globalThis.__pmbRunShutdown;
      Promise.resolve(typeof shutdown === "function" ? shutdown() : undefined).finally(() => process.exit(0));
      setTimeout(() => process.exit(0), 10_000).unref();
    });
  }
}
