// Serves chosen app route handlers (app/**/route.ts) from the production build without Next's
// router. The handler is the same compiled module Next itself runs (one module instance per
// process, so one pipeline, one key cache and one read model), called with a standard Request;
// what is skipped is Next's per-request routing work, about 2 ms of CPU per request on these
// machines, more than the whole /v1 pipeline for a latest value.
//
// It only takes requests it can answer exactly as Next would; anything else goes to Next:
// - paths outside the given prefixes, or matching a redirect, rewrite or the proxy (middleware);
// - paths that are not plain (percent-encoding, empty or dot segments, a trailing slash);
// - methods with a body, methods the route does not export, and requests Request cannot hold.
// Responses get next.config's headers for the path, and compression as Next applies it, except
// that gzip bodies are assembled from segments compressed once each (scripts/gzip-segments.mjs).
// The /v1 pipeline sees the Request's DIRECT_HANDOFF mark and hands its status, headers and body
// parts over as they are (lib/api/direct-handoff.ts); any other Response is read as a Response.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { finished } from "node:stream";
import compression from "compression";
import { acceptsGzip, available as segmentedGzip, gzipSegments } from "./gzip-segments.mjs";

const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~!$&'()*+,;=:@-][A-Za-z0-9._~!$&'()*+,;=:@-]*)+$/;
const BODILESS = new Set(["GET", "HEAD", "OPTIONS"]);
/** A Host header that is a host and port, nothing that could move the path or query of the URL. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** Bodies from this size on are compressed for clients that accept it (the compression package's default). */
const COMPRESS_AT = 1024;
/** Shared with lib/api/direct-handoff.ts through the global symbol registry. */
const DIRECT_HANDOFF = Symbol.for("pmb.direct-handoff");

/**
 * The dispatcher for the app routes under `prefixes`, read from the build in `dir`/.next.
 * Returns null when the build has no such route. The function it returns answers a request and
 * resolves true, or resolves false without touching the response (the caller hands it to Next).
 */
export function directRoutes({ dir, prefixes }) {
  const distDir = path.join(dir, ".next");
  const read = (file) => JSON.parse(fs.readFileSync(path.join(distDir, file), "utf8"));
  const manifest = read("routes-manifest.json");
  if (manifest.basePath || manifest.caseSensitive) return null;
  const appPaths = read("app-path-routes-manifest.json");
  const routeFiles = new Map();
  for (const [entry, page] of Object.entries(appPaths)) if (entry.endsWith("/route")) routeFiles.set(page, entry);

  const under = (page) => prefixes.some((p) => page === p || page.startsWith(`${p}/`));
  const routes = [];
  for (const r of [...(manifest.staticRoutes ?? []), ...(manifest.dynamicRoutes ?? [])]) {
    const entry = routeFiles.get(r.page);
    if (!entry || !under(r.page)) continue;
    routes.push({
      page: r.page,
      regex: new RegExp(r.namedRegex ?? r.regex),
      params: paramNames(r.page, r.routeKeys ?? {}),
      file: path.join(distDir, "server", "app", `${entry}.js`),
      module: null,
    });
  }
  if (routes.length === 0) return null;

  // Requests Next would redirect, rewrite or run the proxy for stay with Next.
  const rewrites = manifest.rewrites ?? {};
  const elsewhere = [
    ...(manifest.redirects ?? []),
    ...(Array.isArray(rewrites) ? rewrites : [...(rewrites.beforeFiles ?? []), ...(rewrites.afterFiles ?? []), ...(rewrites.fallback ?? [])]),
    ...proxyMatchers(distDir),
  ].map((r) => new RegExp(r.regex ?? r.regexp));
  // next.config headers(); a rule with has/missing conditions is beyond this dispatcher.
  const headerRules = (manifest.headers ?? []).map((h) => ({ regex: new RegExp(h.regex), headers: h.headers, conditional: Boolean(h.has || h.missing) }));

  const requireBuilt = createRequire(path.join(distDir, "server", "index.js"));
  const compress = compression();

  async function handlerFor(route, method) {
    if (!route.module) {
      const { routeModule } = requireBuilt(route.file);
      await routeModule.ensureUserland();
      route.module = routeModule.userland;
    }
    const handler = route.module[method];
    return typeof handler === "function" ? handler : null;
  }

  return async function dispatch(req, res) {
    if (!BODILESS.has(req.method ?? "")) return false;
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    if (!PLAIN_PATH.test(pathname)) return false;
    if (elsewhere.some((r) => r.test(pathname))) return false;
    let match = null;
    let route = null;
    for (const r of routes) {
      match = r.regex.exec(pathname);
      if (match) {
        route = r;
        break;
      }
    }
    if (!route || !match) return false;
    const rules = headerRules.filter((h) => h.regex.test(pathname));
    if (rules.some((h) => h.conditional)) return false;

    const handler = await handlerFor(route, req.method);
    if (!handler) return false;
    let request;
    try {
      const host = HOST.test(req.headers.host ?? "") ? req.headers.host : "localhost";
      request = new Request(`http://${host}${url}`, { method: req.method, headers: requestHeaders(req) });
      request[DIRECT_HANDOFF] = true;
    } catch {
      return false; // a Host or header value fetch's Request refuses: Next answers it
    }
    const params = {};
    route.params.forEach(({ name, catchAll }, i) => {
      const value = match[i + 1];
      if (value !== undefined) params[name] = catchAll ? value.split("/") : value;
    });

    let response;
    try {
      response = await handler(request, { params: Promise.resolve(params) });
    } catch (error) {
      // Route handlers catch their own failures; this is what Next does with one that escapes.
      console.error(`[${route.page}] ${error?.stack ?? String(error)}`);
      response = new Response(null, { status: 500 });
    }
    const handoff = response?.[DIRECT_HANDOFF];
    if (handoff) await send(req, res, handedOver(handoff), rules);
    else await send(req, res, await fromResponse(res, response), rules);
    return true;
  };

  async function send(req, res, out, rules) {
    if (!out) return;
    const { status, chunks, length } = out;
    const type = out.header("content-type");
    if (segmentedGzip && length >= COMPRESS_AT && req.method !== "HEAD" && acceptsGzip(req.headers["accept-encoding"])) {
      if (status === 200 && out.header("content-encoding") === null && /^(application\/json|text\/)/.test(type ?? "")) {
        const parts = gzipSegments(chunks.map((c) => (typeof c === "string" ? Buffer.from(c, "utf8") : c)));
        return write(res, () => {
          setHeaders(res, out, rules);
          varyOnEncoding(res);
          res.setHeader("content-encoding", "gzip");
          res.setHeader("content-length", parts.reduce((n, p) => n + p.length, 0));
          return parts;
        });
      }
    }
    if (length < COMPRESS_AT && length > 0 && (type === null || /^application\/json\s*(;|$)/i.test(type))) {
      // What the compression package does with a body under its threshold, without wrapping the
      // response: Vary for a compressible type it may transform, the body as it is.
      return write(res, () => {
        setHeaders(res, out, rules);
        if (type !== null && !/(?:^|,)\s*?no-transform\s*?(?:,|$)/.test(String(res.getHeader("cache-control") ?? ""))) varyOnEncoding(res);
        res.setHeader("content-length", length);
        return chunks;
      });
    }
    return new Promise((resolve) => {
      compress(req, res, () => {
        write(res, () => {
          setHeaders(res, out, rules);
          const bodiless = status === 204 || status === 304 || status < 200;
          if (!bodiless) res.setHeader("content-length", length); // the bytes written below, whatever the handler said
          return chunks;
        }).then(resolve);
      });
    });
  }
}

/**
 * A route's answer as the writer takes it: status, body chunks and their length, a header lookup
 * and `setHeaders(res)`. From a Response, the body stream is read to the end (its parts are
 * already in memory: reused JSON bytes between per-request pieces); null when that failed and
 * the connection was dropped.
 */
async function fromResponse(res, response) {
  const chunks = [];
  let length = 0;
  try {
    if (response.body) {
      for await (const chunk of response.body) {
        chunks.push(chunk);
        length += chunk.byteLength;
      }
    }
  } catch (error) {
    console.error(`direct route body: ${error?.stack ?? String(error)}`);
    res.destroy();
    return null;
  }
  return {
    status: response.status,
    chunks,
    length,
    header: (name) => response.headers.get(name),
    setHeaders(res) {
      for (const [key, value] of response.headers) if (key !== "set-cookie" && key !== "content-length") res.setHeader(key, value);
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    },
  };
}

/** The same from the pipeline's handoff: headers as it set them, the body text or parts as they are. */
function handedOver({ status, headers, body }) {
  const chunks = typeof body === "string" ? [body] : body;
  let length = 0;
  for (const chunk of chunks) length += typeof chunk === "string" ? Buffer.byteLength(chunk, "utf8") : chunk.byteLength;
  return {
    status,
    chunks,
    length,
    header(name) {
      for (const key in headers) if (key.toLowerCase() === name) return headers[key];
      return null;
    },
    setHeaders(res) {
      for (const key in headers) {
        const lower = key.toLowerCase();
        if (lower !== "set-cookie" && lower !== "content-length") res.setHeader(key, headers[key]);
      }
    },
  };
}

/** Adds Accept-Encoding to Vary unless it is there. */
function varyOnEncoding(res) {
  const vary = String(res.getHeader("vary") ?? "");
  if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) res.setHeader("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
}

/** next.config's headers for the path, then the answer's status and headers. */
function setHeaders(res, out, rules) {
  for (const rule of rules) for (const { key, value } of rule.headers) res.setHeader(key, value);
  res.statusCode = out.status;
  out.setHeaders(res);
}

/** Sets the head (`head` returns the body's parts) and writes head and body in one corked write. */
function write(res, head) {
  return new Promise((resolve) => {
    const parts = head();
    finished(res, () => resolve()); // also when the client is already gone
    res.cork();
    for (const part of parts) res.write(part);
    res.end();
    res.uncork();
  });
}

/** The route's parameters in regex group order: `[name]`, `[...name]` and `[[...name]]` segments. */
function paramNames(page, routeKeys) {
  const names = [];
  for (const segment of page.split("/")) {
    const m = /^\[{1,2}(\.\.\.)?([^\]]+)\]{1,2}$/.exec(segment);
    if (m) names.push({ name: m[2], catchAll: Boolean(m[1]) });
  }
  if (names.length !== Object.keys(routeKeys).length) throw new Error(`direct routes: cannot read the parameters of ${page}`);
  return names;
}

function proxyMatchers(distDir) {
  const file = path.join(distDir, "server", "functions-config-manifest.json");
  const fns = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")).functions ?? {} : {};
  const edge = JSON.parse(fs.readFileSync(path.join(distDir, "server", "middleware-manifest.json"), "utf8")).middleware ?? {};
  return [...Object.values(fns), ...Object.values(edge)].flatMap((f) => f.matchers ?? []);
}

function requestHeaders(req) {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  // Set by the server from the socket after the client's headers were read (scripts/server.mjs).
  headers.set("x-pmb-peer", req.headers["x-pmb-peer"] ?? "");
  return headers;
}
