import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "@/lib/api/errors";
import { answerV1, underV1, pathSegments, writeFault, writeResult } from "@/lib/api/node-adapter";
import type { Services } from "@/lib/api/pipeline";
import type { ApiResult } from "@/lib/api/result";
import { errorResult, methodNotAllowed, newRequestId } from "@/lib/api/responses";
import { SECURITY_HEADERS } from "@/lib/api/security-headers";

// The server's front: every request passes it first. It answers what the server itself must
// answer whatever the route (a request target that is not a path, a path that is not valid
// percent-encoding or not canonical, a missing or repeated Host, a method no route takes, a
// request Node could not parse or refused), hands /v1 to the node:http adapter
// (lib/api/node-adapter.ts), and leaves everything else to Next.

/** Methods some route of the service takes; any other is refused before routing. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

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

/** How many Host fields a raw header list (name, value, ...) has; read without building `req.headers`. */
function hostCount(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") n++;
  return n;
}

/** The methods the server answers (the Allow of `OPTIONS *`). */
const SERVER_METHODS = [...KNOWN_METHODS].join(", ");

/** An absolute-form target (RFC 9112 section 3.2.2): scheme, authority, path, query; no fragment. */
const ABSOLUTE_FORM = /^(https?):\/\/([^/?#@\s]+)(\/[^?#\s]*)?(\?[^#\s]*)?$/i;

/**
 * Brings the request target to origin form before anything reads it (metrics, the probes, the
 * front, Next). RFC 9112 section 3.2.2: a server MUST accept the absolute form (`GET
 * http://host/v1/indices`); its path and query become the target and its authority replaces
 * Host (section 3.2.2; RFC 9112 section 7.2 and RFC 9110 section 7.2). An `http` or `https` URI
 * only; an empty path is `/`. The front answers what is left that is not a path.
 */
export function originForm(req: IncomingMessage): void {
  const url = req.url ?? "/";
  if (url.startsWith("/") || url === "*") return;
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return;
  req.url = (m[3] || "/") + (m[4] ?? "");
  req.headers.host = m[2]!.toLowerCase();
}

/**
 * The answer to a request target that is not a path once `originForm` ran (RFC 9112 section 3.2):
 * `OPTIONS *` asks about the server as a whole (RFC 9110 section 9.3.7) and gets 204 with the
 * methods it answers; the asterisk with another method, another scheme or anything else is a 400.
 */
function targetAnswer(req: IncomingMessage, url: string): ApiResult {
  if (url === "*") {
    if (req.method === "OPTIONS")
      return {
        status: 204,
        headers: { Allow: SERVER_METHODS, "X-Request-Id": newRequestId(), "Cache-Control": "no-store" },
        body: null,
      };
    return badRequest("The asterisk request target is for OPTIONS only (OPTIONS *); send other methods to a path.");
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url))
    return badRequest(
      "The request target is not a path nor an http or https URL with a host: send the path (GET /v1/...) with the host in the Host header.",
    );
  return badRequest("The request target must be a path starting with '/'.");
}

/** The Allow header for a method no route takes, by the path's surface. */
function allowFor(path: string): string {
  if (underV1(path)) return "GET";
  if (path === "/mcp") return "POST";
  if (path.startsWith("/api/")) return "GET, POST";
  return "GET, HEAD";
}

function redirectResult(location: string): ApiResult {
  return {
    status: 308,
    headers: { Location: location, "X-Request-Id": newRequestId(), "Cache-Control": "no-store" },
    body: null,
  };
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
  return async function front(req: IncomingMessage, res: ServerResponse, peer: string): Promise<boolean> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    // Counted in the raw fields: an absolute-form target has replaced Host in `req.headers` (originForm).
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
    if (!path.startsWith("/")) {
      writeResult(req, res, targetAnswer(req, url));
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
    const v1 = segments[0] === "v1" && underV1(path);
    if (!v1 && !KNOWN_METHODS.has(method)) {
      writeResult(req, res, errorResult(methodNotAllowed(method, allowFor(path)), newRequestId()));
      return true;
    }
    if (!v1) return false;
    await answerV1(services, req, res, segments, peer);
    return true;
  };
}

export type Front = ReturnType<typeof createFront>;

/**
 * Gives a request to `front`, and to `pass` when the front leaves it to Next. A fault in writing
 * the answer (the pipeline maps its own failures) is logged in one line and ends the response.
 */
export function dispatch(
  front: Front,
  req: IncomingMessage,
  res: ServerResponse,
  peer: string,
  pass: (req: IncomingMessage, res: ServerResponse, peer: string) => void,
): void {
  front(req, res, peer).then(
    (done) => done || pass(req, res, peer),
    (error: unknown) => writeFault(req, res, error),
  );
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
    result = errorResult(
      new ApiError("error", {
        status: 400,
        message: "This port speaks plain HTTP, not TLS: use http://, or reach the service through its TLS front.",
      }),
      newRequestId(),
    );
  } else if (error.code === "HPE_HEADER_OVERFLOW") {
    reason = "Request Header Fields Too Large";
    result = errorResult(
      new ApiError("error", { status: 431, message: "The request headers are too large." }),
      newRequestId(),
    );
  } else if (error.code === "HPE_INVALID_METHOD") {
    // A method Node's parser does not know (FOO): no route takes it.
    const line = /^(\S{1,32}) (\S+)/.exec(error.rawPacket?.subarray(0, 2048).toString("latin1") ?? "");
    reason = "Method Not Allowed";
    result = errorResult(methodNotAllowed(line?.[1] ?? "?", allowFor(line?.[2]?.split("?")[0] ?? "/")), newRequestId());
  } else {
    result = errorResult(
      new ApiError("error", { status: 400, message: "The request could not be read as HTTP." }),
      newRequestId(),
    );
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
