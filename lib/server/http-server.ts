import cluster from "node:cluster";
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import next from "next";
import type { Logger } from "pino";
import { matchRoute, pathSegments, underV1 } from "@/lib/api/node-adapter";
import { clientError, connectRequest, createFront, dispatch, expectationFailed, originForm } from "@/lib/server/front";
import { FRONT_REQUEST_ID, newRequestId } from "@/lib/api/responses";
import { config, type Config } from "@/lib/config";
import { boot } from "@/lib/server/boot";
import { root } from "@/lib/root";
import { clusterMetricsOf, serveClusterMetrics } from "@/lib/server/cluster-metrics";
import { trackConnections } from "@/lib/server/drain";
import { createAccessLogger, createLogger, routeConsole, stdStreams } from "@/lib/server/logging";
import { answerOps } from "@/lib/server/ops-routes";
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

/** The share of SHUTDOWN_TIMEOUT_MS the drain of connections may take; the rest is the shutdown work's (usage flush). */
const DRAIN_SHARE = 0.6;
/** Exit status of a server that cannot listen on its port (in use, not permitted): a setting to change, not a crash to restart. */
const CANNOT_LISTEN_EXIT = 2;

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
  if (c.WEB_CONCURRENCY > 1 && cluster.isPrimary) {
    routeConsole(createLogger("primary", stdStreams(c.LOG_BUFFER_BYTES)));
    await listen(net.createServer(), c, true);
    return runPrimary(c, workerScript);
  }
  const { instanceId: instance, metrics } = root();
  const streams = stdStreams(c.LOG_BUFFER_BYTES, {
    dropped: () => metrics.logLinesDropped.inc(),
    caughtUp: (count) =>
      console.warn(
        `${count} log lines were dropped: stdout was not read while LOG_BUFFER_BYTES (${c.LOG_BUFFER_BYTES}) of lines waited`,
      ),
  });
  routeConsole(createLogger(instance, streams));
  if (cluster.isPrimary) await listen(net.createServer(), c, true);
  await serveOne(dir, c, c.ACCESS_LOG ? createAccessLogger(instance, streams) : null);
}

function address(c: Config): string {
  return `http://${c.HOST === "0.0.0.0" ? "localhost" : c.HOST}:${c.PORT}`;
}

/** The cluster's primary: N workers, another started for each that dies, all stopped on a signal. */
function runPrimary(c: Config, workerScript: string): void {
  if (c.embedded || !c.REDIS_URL) {
    console.error(
      "WEB_CONCURRENCY > 1 needs DATABASE_URL and REDIS_URL: the instances share the database and the rate-limit windows",
    );
    process.exit(2);
  }
  // Each worker accepts its own connections from the shared socket: a worker that dies takes
  // only the connections it accepted (the kernel resets them), never one the primary had
  // accepted and was still handing over (Node's round-robin default).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: workerScript, args: [] });
  serveClusterMetrics();
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
    if (code === CANNOT_LISTEN_EXIT && !stopping) {
      // The worker logged which port and why; another worker would fail the same way.
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
      process.exit(CANNOT_LISTEN_EXIT);
    }
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
      setTimeout(() => process.exit(0), c.SHUTDOWN_TIMEOUT_MS + 2000).unref();
    });
  }
}

/** One server: Next, boot (database, journals, background work), then the listener; `accessLog` null without ACCESS_LOG. */
async function serveOne(dir: string, c: Config, accessLog: Logger | null): Promise<void> {
  const app = next({ dev: false, dir, hostname: c.HOST, port: c.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();
  // Before the first request: the database, and the windows and usage a previous life left
  // (the start-up backfill goes on in the background).
  await boot();

  const front = createFront(root());
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
  const observe = observeRequests(accessLog);
  let drain: ReturnType<typeof trackConnections> | null = null;
  const state = {
    stopping: () => drain?.stopping ?? false,
    metrics: cluster.isWorker ? clusterMetricsOf(root().metrics.registry) : undefined,
  };
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    const peer = req.socket.remoteAddress ?? "";
    originForm(req);
    const path = observe(req, res);
    if (!underV1(path) && answerOps(req, res, path, peer, state)) return;
    dispatch(front, req, res, peer, toNext);
  });
  server.on("clientError", (error: Error, socket: Duplex) => clientError(error, socket));
  server.on("connect", connectRequest);
  server.on("checkExpectation", expectationFailed);
  server.keepAliveTimeout = 65_000;
  drain = trackConnections(server);
  watchEngineLag();
  await listen(server, c);
  if (cluster.isWorker) process.send?.("ready");
  else console.log(`ready on ${address(c)}`);

  // Stop accepting; answer the requests under way (and any that still arrive on an open
  // connection) with Connection: close; close connections as they fall idle (lib/server/drain.ts);
  // then let the app flush usage and close the database; exit, all within SHUTDOWN_TIMEOUT_MS.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      if (!drain || drain.stopping) return;
      const started = performance.now();
      setTimeout(() => process.exit(0), c.SHUTDOWN_TIMEOUT_MS).unref();
      void drain
        .stop(c.SHUTDOWN_TIMEOUT_MS * DRAIN_SHARE)
        .then(({ cut }) => {
          if (cut)
            console.error(
              `[server] stopping: ${cut} connection(s) still busy after ${Math.round(performance.now() - started)} ms were cut`,
            );
        })
        .then(() => root().shutdown.run())
        .finally(() => process.exit(0));
    });
  }
}

/** Ends the process with CANNOT_LISTEN_EXIT and one log line naming the address and why it cannot be had. */
function cannotListen(c: Config, error: NodeJS.ErrnoException): never {
  const why: Record<string, string> = {
    EADDRINUSE: "the port is in use by another process",
    EACCES: "permission denied (a port below 1024 needs privileges)",
    EADDRNOTAVAIL: "the address is not one of this host's",
  };
  console.error(
    `[server] cannot listen on ${c.HOST}:${c.PORT}: ${why[error.code ?? ""] ?? error.message} (${error.code ?? "error"}); set PORT or HOST, or stop the other process`,
  );
  // The log line is written before the exit (the log's streams are synchronous).
  process.exit(CANNOT_LISTEN_EXIT);
}

/**
 * Listens on PORT at HOST, or ends the process (cannotListen). `probe`: listen and close at once,
 * before any work (Next, the database, the instance's record, the workers), so a port that cannot
 * be had ends the process at once, not after the start-up and not leaving an instance
 * record behind; the real listen, after the start-up, is checked the same way.
 */
async function listen(server: http.Server | net.Server, c: Config, probe = false): Promise<void> {
  await new Promise<void>((resolve) => {
    const failed = (error: NodeJS.ErrnoException) => cannotListen(c, error);
    server.once("error", failed);
    server.listen(c.PORT, c.HOST, () => {
      server.off("error", failed);
      if (probe) server.close(() => resolve());
      else resolve();
    });
  });
}

/**
 * Times every request into http_server_request_duration_seconds (by route template, method and
 * status) and, with ACCESS_LOG, writes one access-log line when its answer is done: request id,
 * method, route, status, duration (the path's query is never logged: it may carry a key someone
 * put there). Returns the request's path.
 */
function observeRequests(accessLog: Logger | null) {
  const { metrics } = root();
  return (req: http.IncomingMessage, res: http.ServerResponse): string => {
    const started = performance.now();
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    res.once("close", () => {
      const seconds = (performance.now() - started) / 1000;
      const route = routeLabel(path);
      const status = res.statusCode;
      const method = req.method ?? "?";
      metrics.httpDuration.observe(
        { http_route: route, http_request_method: method, http_response_status_code: String(status) },
        seconds,
      );
      if (!accessLog) return;
      const requestId = res.getHeader("x-request-id");
      accessLog.info(
        {
          requestId,
          method,
          route,
          status,
          durationMs: Math.round(seconds * 10_000) / 10,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        "request",
      );
    });
    return path;
  };
}

/** pmb_engine_hour_lag_seconds: how far the newest computed hour is behind now, read when scraped (at most every 15 s). */
function watchEngineLag(): void {
  const r = root();
  let cached: { at: number; newest: number | null } | null = null;
  r.metrics.gauge(
    "pmb_engine_hour_lag_seconds",
    "Seconds between now and the newest hour the engine computed (absent before the first).",
    async () => {
      if (!cached || Date.now() - cached.at > 15_000) {
        const rows = await (
          await r.db()
        ).$queryRawUnsafe<Array<{ t: Date | null }>>("SELECT max(t) AS t FROM index_levels");
        cached = { at: Date.now(), newest: rows[0]?.t ? new Date(rows[0].t).getTime() : null };
      }
      return cached.newest === null ? null : Math.max(0, (Date.now() - cached.newest) / 1000);
    },
  );
}

/** Surfaces whose paths are labelled by their first segment (their pages and files are many). */
const PREFIXES = ["docs", "portal", "api", "downloads", "indices", "volatility", "status", "changelog", "dev", "_next"];

/**
 * The route template of a request path for metrics and the access log: a /v1 endpoint's template
 * (/v1/indices/{ticker}/latest), `/v1/*` for an unknown /v1 path, the few fixed paths as they
 * are, `/<surface>/*` for pages and files, `other` for the rest. Bounded: never a raw path.
 */
export function routeLabel(path: string): string {
  if (underV1(path)) {
    const segments = pathSegments(path);
    return (segments && matchRoute(segments)?.endpoint.path) ?? "/v1/*";
  }
  if (
    /^\/(mcp|healthz|livez|readyz|metrics|status\.json|openapi\.json|llms\.txt|robots\.txt|sitemap\.xml|operator|favicon\.ico|icon\.svg)?$/.test(
      path,
    )
  )
    return path;
  const first = path.split("/")[1] ?? "";
  return PREFIXES.includes(first) ? `/${first}/*` : "other";
}
