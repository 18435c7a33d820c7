#!/usr/bin/env node
// The production server: Next.js behind a plain Node HTTP server, so the client address the
// API throttles on comes from the socket (`x-pmb-peer`), never from a header the client sent.
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import next from "next";

const dir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "0.0.0.0";

const app = next({ dev: false, dir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  req.headers["x-pmb-peer"] = req.socket.remoteAddress ?? "";
  if (!decodablePath(req.url ?? "/")) return badPath(req, res);
  void handle(req, res);
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
  console.log(`ready on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`);
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
