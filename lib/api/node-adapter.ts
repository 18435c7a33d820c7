import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { encodeBody, type Encoded } from "@/lib/api/compression";
import { endpoints, type Endpoint } from "@/lib/api/endpoints";
import { ApiError } from "@/lib/api/errors";
import { answerEndpoint, answerUnknown, type Services } from "@/lib/api/pipeline";
import type { ApiRequest, ApiResult, RequestHeaders } from "@/lib/api/result";
import { SECURITY_HEADERS } from "@/lib/api/security-headers";
import { errorResult, FRONT_REQUEST_ID, methodNotAllowed, newRequestId } from "@/lib/api/responses";
import type { Journals } from "@/lib/plumbing/journal";

// The node:http adapter: the production server (lib/server/http-server.ts) hands every request to
// `front` first. It answers what the server itself must answer whatever the route (a path
// that is not valid percent-encoding, a method no route takes, a path that is not canonical,
// a request Node could not parse or refused) and every path under /v1, routed by the path
// templates of lib/api/endpoints.ts and answered by the same pipeline as the route files
// (lib/api/pipeline.ts). Everything else goes to Next. It reads nothing of Next's.

interface Route {
  endpoint: Endpoint;
  /** Literal segments, or the name of a path parameter. */
  segments: Array<string | { param: string }>;
}

const ROUTES: Route[] = Object.values(endpoints as Record<string, Endpoint>).map((endpoint) => ({
  endpoint,
  segments: endpoint.path
    .split("/")
    .slice(1)
    .map((s) => {
      const m = /^\{(\w+)\}$/.exec(s);
      return m ? { param: m[1]! } : s;
    }),
}));

/** Methods some route of the service takes; any other is refused before routing. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The endpoint and parameters for a path's decoded segments ("v1" first), or null. */
export function matchRoute(segments: readonly string[]): { endpoint: Endpoint; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    if (route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const want = route.segments[i]!;
      const got = segments[i]!;
      if (typeof want === "string") ok = want === got;
      else if (got === "") ok = false;
      else params[want.param] = got;
    }
    if (ok) return { endpoint: route.endpoint, params };
  }
  return null;
}

/** `/v1` or a path under it. */
export function underV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}

/**
 * The canonical form of a path that is not: repeated slashes collapsed and a trailing slash
 * dropped; null when the path is canonical already.
 */
export function canonicalPath(path: string): string | null {
  if (!path.includes("//") && (path.length === 1 || !path.endsWith("/"))) return null;
  const collapsed = path.replace(/\/{2,}/g, "/");
  const trimmed = collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
  return trimmed || "/";
}

/** The path's segments after its first slash, undecoded (`/a//b` -> ["a", "", "b"]), cut by indexOf. */
function cutSegments(path: string): string[] {
  const out: string[] = [];
  let start = path.indexOf("/") + 1;
  if (start === 0) return out;
  for (let end = path.indexOf("/", start); end !== -1; end = path.indexOf("/", start)) {
    out.push(path.slice(start, end));
    start = end + 1;
  }
  out.push(path.slice(start));
  return out;
}

/** Decoded segments with `.` and `..` resolved; null when a segment is not valid percent-encoding. */
export function pathSegments(path: string): string[] | null {
  const raw = cutSegments(path);
  // Most paths have nothing to decode or resolve: no percent sign, no segment starting with a dot.
  if (!path.includes("%") && !path.includes("/.")) return raw;
  const out: string[] = [];
  for (const part of raw) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return out;
}

/** How many Host fields a raw header list (name, value, ...) has; read without building `req.headers`. */
function hostCount(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") n++;
  return n;
}

/**
 * The 400 for a request target that is not a path (RFC 9112 section 3.2): the absolute form
 * (`GET http://host/v1`, meant for a proxy), the asterisk form (`OPTIONS *`) or anything else.
 */
function targetRefusal(url: string): ApiResult {
  if (url === "*") return badRequest("This server answers no server-wide OPTIONS * request: send OPTIONS to a path, such as /v1/indices.");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return badRequest("This server is not a proxy: send the path (GET /v1/...) with the host in the Host header, not an absolute URL.");
  return badRequest("The request target must be a path starting with '/'.");
}

/** The Allow header for a method no route takes, by the path's surface. */
function allowFor(path: string): string {
  if (underV1(path)) return "GET";
  if (path === "/mcp") return "POST";
  if (path.startsWith("/api/")) return "GET, POST";
  return "GET, HEAD";
}

/**
 * The request's headers as lib/api reads them, from Node's raw list: names case-insensitive,
 * repeated fields joined as a web `Headers` joins them (", ", "; " for Cookie), values trimmed of
 * HTTP whitespace. `x-pmb-peer` is the one the server set from the socket (scripts/server.mjs),
 * never a client's.
 */
export class NodeRequestHeaders implements RequestHeaders {
  private readonly map = new Map<string, string>();

  constructor(raw: readonly string[], peer: string) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = trimHttpWhitespace(raw[i + 1]!);
      const had = this.map.get(name);
      this.map.set(name, had === undefined ? value : `${had}${name === "cookie" ? "; " : ", "}${value}`);
    }
    this.map.set("x-pmb-peer", peer);
    // The id the front gave a request it hands to Next (lib/server/http-server.ts); never a client's.
    this.map.delete(FRONT_REQUEST_ID);
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
}

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * The head of a result as a flat [name, value, ...] list for `writeHead`: the security headers,
 * the result's headers (Content-Length and Set-Cookie dropped; a name given twice keeps its first
 * place and its last value, as setHeader would), the encoding's headers (Vary merged), and
 * Content-Length unless the status has no body.
 */
export function headList(result: ApiResult, encoded: Encoded): string[] {
  const headers = new Map<string, [string, string]>(SECURITY_HEADERS.map(({ key, value }) => [key.toLowerCase(), [key, value]]));
  const put = (key: string, value: string) => headers.set(key.toLowerCase(), [key, value]);
  for (const [key, value] of Object.entries(result.headers)) if (!/^(content-length|set-cookie)$/i.test(key)) put(key, value);
  for (const [key, value] of Object.entries(encoded.headers)) {
    const vary = key === "Vary" ? (headers.get("vary")?.[1] ?? "") : null;
    if (vary === null) put(key, value);
    else if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) put("Vary", vary ? `${vary}, ${value}` : value);
  }
  if (result.status !== 204 && result.status !== 304) put("Content-Length", String(encoded.body.length));
  return [...headers.values()].flat();
}

/** Told of each answer the front writes, with its request id (the server's access log and metrics). */
let answerObserver: ((res: ServerResponse, requestId: string | undefined) => void) | null = null;

/** Sets the observer of the front's answers (lib/server/http-server.ts). */
export function observeAnswers(observer: (res: ServerResponse, requestId: string | undefined) => void): void {
  answerObserver = observer;
}

/** The journals the front flushes before an answer leaves (set when the server mounts the front). */
let frontJournals: Journals | null = null;

/** The result on the wire: security headers, the result's headers, the body encoded for the client. */
function writeNow(req: IncomingMessage, res: ServerResponse, result: ApiResult, acceptEncoding: string | null): void {
  const head = req.method === "HEAD";
  const contentType = Object.entries(result.headers).find(([key]) => key.toLowerCase() === "content-type")?.[1];
  const encoded = encodeBody(result.body, contentType, head ? undefined : acceptEncoding);
  answerObserver?.(res, result.headers["X-Request-Id"]);
  res.writeHead(result.status, headList(result, encoded));
  if (head || result.status === 204 || result.status === 304) res.end();
  else res.end(encoded.body);
}

/**
 * Writes the answer, after the journals: what the request charged is in the kernel before any
 * byte of the answer leaves (lib/plumbing/journal.ts). `acceptEncoding` as the caller read it
 * (null: none sent); left out, it is read from `req.headers`.
 */
export function writeResult(req: IncomingMessage, res: ServerResponse, result: ApiResult, acceptEncoding?: string | null): void {
  frontJournals?.flush();
  try {
    writeNow(req, res, result, acceptEncoding === undefined ? (req.headers["accept-encoding"] ?? null) : acceptEncoding);
  } catch (error) {
    writeFault(req, res, error);
  }
}

function redirectResult(location: string): ApiResult {
  return { status: 308, headers: { Location: location, "X-Request-Id": newRequestId(), "Cache-Control": "no-store" }, body: null };
}

function badRequest(message: string): ApiResult {
  return errorResult(new ApiError("error", { status: 400, message }), newRequestId());
}

/**
 * What the server calls for every request, with the socket's peer address: true when it
 * answered, false when Next should (the response untouched). `services` come from the root at
 * the server's start.
 */
export function createFront(services: Services) {
  frontJournals = services.journals;
  return async function front(req: IncomingMessage, res: ServerResponse, peer: string): Promise<boolean> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (!path.startsWith("/")) {
      writeResult(req, res, targetRefusal(url));
      return true;
    }
    const segments = pathSegments(path);
    if (!segments) {
      writeResult(req, res, badRequest("The request path is not valid percent-encoding."));
      return true;
    }
    const canonical = canonicalPath(path);
    if (canonical !== null) {
      writeResult(req, res, redirectResult(canonical + (q === -1 ? "" : url.slice(q))));
      return true;
    }
    const method = req.method ?? "GET";
    const hosts = hostCount(req.rawHeaders);
    if (req.httpVersion === "1.1" && hosts === 0) {
      // HTTP/1.1 requires Host (RFC 9112 section 3.2); Node's own check is off so that this
      // answer carries a request id and the error shape.
      writeResult(req, res, badRequest("An HTTP/1.1 request must carry a Host header."));
      return true;
    }
    if (hosts > 1) {
      // RFC 9112 section 3.2: a request with more than one Host field is answered 400.
      res.shouldKeepAlive = false;
      writeResult(req, res, badRequest("A request must carry one Host header, not several."));
      return true;
    }
    const v1 = segments[0] === "v1" && underV1(path);
    if (!v1 && !KNOWN_METHODS.has(method)) {
      writeResult(req, res, errorResult(methodNotAllowed(method, allowFor(path)), newRequestId()));
      return true;
    }
    if (!v1) return false;
    let headers: NodeRequestHeaders;
    try {
      headers = new NodeRequestHeaders(req.rawHeaders, peer);
    } catch {
      writeResult(req, res, badRequest("A request header could not be read."));
      return true;
    }
    const request: ApiRequest = { method, headers, query: new URLSearchParams(q === -1 ? "" : url.slice(q + 1)), params: {}, path: url };
    const match = matchRoute(segments);
    const result = match ? await answerEndpoint(services, match.endpoint.path, match.endpoint.handler, { ...request, params: match.params }) : await answerUnknown(services, request);
    writeResult(req, res, result, headers.get("accept-encoding"));
    return true;
  };
}

export type Front = ReturnType<typeof createFront>;

/**
 * Gives a request to `front`, and to `pass` when the front leaves it to Next. A fault in writing
 * the answer (the pipeline maps its own failures) is logged in one line and ends the response.
 */
export function dispatch(front: Front, req: IncomingMessage, res: ServerResponse, peer: string, pass: (req: IncomingMessage, res: ServerResponse, peer: string) => void): void {
  front(req, res, peer).then(
    (done) => done || pass(req, res, peer),
    (error: unknown) => writeFault(req, res, error),
  );
}

function writeFault(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  console.error(`front ${req.method} ${req.url?.split("?")[0]}: ${(error as Error)?.message ?? error}`);
  if (!res.headersSent) {
    res.statusCode = 500;
    res.end();
  } else res.destroy();
}

/**
 * The answer to a request Node could not parse (a malformed request line, raw bytes in the
 * path, headers over the size limit): the spec's error shape with a request id, then close.
 */
export function clientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  let result: ApiResult;
  let reason = "Bad Request";
  const packet = error.rawPacket;
  if (packet && packet.length >= 3 && packet[0] === 0x16 && packet[1] === 0x03) {
    // A TLS ClientHello (record type 22, version 3.x): a client speaking https to this plain port.
    result = errorResult(new ApiError("error", { status: 400, message: "This port speaks plain HTTP, not TLS: use http://, or reach the service through its TLS front." }), newRequestId());
  } else if (error.code === "HPE_HEADER_OVERFLOW") {
    reason = "Request Header Fields Too Large";
    result = errorResult(new ApiError("error", { status: 431, message: "The request headers are too large." }), newRequestId());
  } else if (error.code === "HPE_INVALID_METHOD") {
    // A method Node's parser does not know (FOO): no route takes it.
    const line = /^(\S{1,32}) (\S+)/.exec(error.rawPacket?.subarray(0, 2048).toString("latin1") ?? "");
    reason = "Method Not Allowed";
    result = errorResult(methodNotAllowed(line?.[1] ?? "?", allowFor(line?.[2]?.split("?")[0] ?? "/")), newRequestId());
  } else {
    result = errorResult(new ApiError("error", { status: 400, message: "The request could not be read as HTTP." }), newRequestId());
  }
  socket.end(rawHttp(result, reason));
}

/** A CONNECT request (Node hands it over outside the request event): 405, then close. */
export function connectRequest(req: IncomingMessage, socket: Duplex): void {
  const result = errorResult(methodNotAllowed("CONNECT", allowFor(req.url ?? "/")), newRequestId());
  socket.end(rawHttp(result, "Method Not Allowed"));
}

function rawHttp(result: ApiResult, reason: string): string {
  const body = typeof result.body === "string" ? result.body : "";
  const lines = [`HTTP/1.1 ${result.status} ${reason}`];
  for (const { key, value } of SECURITY_HEADERS) lines.push(`${key}: ${value}`);
  for (const [key, value] of Object.entries(result.headers)) lines.push(`${key}: ${value}`);
  lines.push(`Content-Length: ${Buffer.byteLength(body, "utf8")}`, "Connection: close", "", body);
  return lines.join("\r\n");
}

/**
 * The answer to an `Expect` other than `100-continue` (the server's 'checkExpectation' event):
 * 417 in the error shape, with a request id.
 */
export function expectationFailed(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const message = "The only expectation this server meets is Expect: 100-continue.";
  writeResult(req, res, errorResult(new ApiError("error", { status: 417, message }), newRequestId()));
}
