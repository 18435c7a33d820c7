import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { endpoints, type Endpoint } from "@/lib/api/endpoints";
import { ApiError } from "@/lib/api/errors";
import { answerEndpoint, answerUnknown, type Services } from "@/lib/api/pipeline";
import type { ApiRequest, ApiResult, RequestHeaders } from "@/lib/api/result";
import { SECURITY_HEADERS } from "@/lib/api/security-headers";
import { errorResult, FRONT_REQUEST_ID, newRequestId } from "@/lib/api/responses";

// The node:http adapter of /v1: the production server's front (lib/server/front.ts) hands it
// every path under /v1, routed here by the path templates of lib/api/endpoints.ts, answered by
// the same pipeline as the route files (lib/api/pipeline.ts) and written with the security
// headers, a Content-Length and gzip for clients that accept it (a compressible body of
// COMPRESS_AT bytes or more). It reads nothing of Next's.

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
      const value = raw[i + 1]!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
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

/** Bodies from this size on are compressed for clients that accept it. */
export const COMPRESS_AT = 1024;

/** Whether an Accept-Encoding header admits gzip (by name or `*`, with a q above 0). */
export function acceptsGzip(header: string | string[] | undefined | null): boolean {
  if (!header) return false;
  let star = false;
  for (const item of String(header).split(",")) {
    const [name, ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name === "gzip" || name === "x-gzip") return weight > 0;
    if (name === "*") star = weight > 0;
  }
  return star;
}

/** Content types worth compressing: JSON and text (CSV included). */
export function compressible(contentType: string | undefined): boolean {
  return !!contentType && /^(application\/(json|[a-z0-9.+-]*\+json)|text\/)/i.test(contentType);
}

export interface Encoded {
  /** Headers to add: Content-Encoding and Vary when the body may be transformed. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The body to write for a client's Accept-Encoding: gzip for a compressible body of COMPRESS_AT
 * bytes or more, else as it is; a compressible body carries `Vary: Accept-Encoding` either way,
 * since another client may get it encoded.
 */
export function encodeBody(
  body: string | Uint8Array | null,
  contentType: string | undefined,
  acceptEncoding: string | null | undefined,
  gzip?: () => Buffer,
): Encoded {
  const bytes =
    body === null
      ? Buffer.alloc(0)
      : typeof body === "string"
        ? Buffer.from(body, "utf8")
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.length === 0 || !compressible(contentType)) return { headers: {}, body: bytes };
  if (bytes.length >= COMPRESS_AT && acceptsGzip(acceptEncoding))
    return {
      headers: { "Content-Encoding": "gzip", Vary: "Accept-Encoding" },
      body: gzip ? gzip() : zlib.gzipSync(bytes),
    };
  return { headers: { Vary: "Accept-Encoding" }, body: bytes };
}

/**
 * The head of a result as a flat [name, value, ...] list for `writeHead`: the security headers,
 * the result's headers (Content-Length and Set-Cookie dropped; a name given twice keeps its first
 * place and its last value, as setHeader would), the encoding's headers (Vary merged), and
 * Content-Length unless the status has no body.
 */
export function headList(result: ApiResult, encoded: Encoded): string[] {
  const headers = new Map<string, [string, string]>(
    SECURITY_HEADERS.map(({ key, value }) => [key.toLowerCase(), [key, value]]),
  );
  const put = (key: string, value: string) => headers.set(key.toLowerCase(), [key, value]);
  for (const [key, value] of Object.entries(result.headers))
    if (!/^(content-length|set-cookie)$/i.test(key)) put(key, value);
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

/** The result on the wire: security headers, the result's headers, the body encoded for the client. */
function writeNow(req: IncomingMessage, res: ServerResponse, result: ApiResult, acceptEncoding: string | null): void {
  const head = req.method === "HEAD";
  const contentType = Object.entries(result.headers).find(([key]) => key.toLowerCase() === "content-type")?.[1];
  const encoded = encodeBody(result.body, contentType, head ? undefined : acceptEncoding, result.gzip);
  answerObserver?.(res, result.headers["X-Request-Id"]);
  res.writeHead(result.status, headList(result, encoded));
  if (head || result.status === 204 || result.status === 304) res.end();
  else res.end(encoded.body);
}

/**
 * Writes the answer; a fault in writing it is logged and ends the response. `acceptEncoding` as
 * the caller read it (null: none sent); left out, it is read from `req.headers`.
 */
export function writeResult(
  req: IncomingMessage,
  res: ServerResponse,
  result: ApiResult,
  acceptEncoding?: string | null,
): void {
  try {
    writeNow(
      req,
      res,
      result,
      acceptEncoding === undefined ? (req.headers["accept-encoding"] ?? null) : acceptEncoding,
    );
  } catch (error) {
    writeFault(req, res, error);
  }
}

export function writeFault(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  console.error(`front ${req.method} ${req.url?.split("?")[0]}: ${(error as Error)?.message ?? error}`);
  if (!res.headersSent) {
    res.statusCode = 500;
    res.end();
  } else res.destroy();
}

/**
 * Answers a request for a path under /v1 (`segments` decoded, "v1" first): the headers read from
 * Node's raw list with the socket's peer address, the endpoint matched, the pipeline's answer
 * written. `services` come from the root at the server's start.
 */
export async function answerV1(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  segments: readonly string[],
  peer: string,
): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  let headers: NodeRequestHeaders;
  try {
    headers = new NodeRequestHeaders(req.rawHeaders, peer);
  } catch {
    return writeResult(
      req,
      res,
      errorResult(
        new ApiError("error", { status: 400, message: "A request header could not be read." }),
        newRequestId(),
      ),
    );
  }
  const request: ApiRequest = {
    method: req.method ?? "GET",
    headers,
    query: new URLSearchParams(q === -1 ? "" : url.slice(q + 1)),
    params: {},
    path: url,
  };
  const match = matchRoute(segments);
  const result = match
    ? await answerEndpoint(services, match.endpoint.path, match.endpoint.handler, { ...request, params: match.params })
    : await answerUnknown(services, request);
  services.journals.flush(); // what the request charged is in the kernel before the answer leaves (lib/plumbing/journal.ts)
  writeResult(req, res, result, headers.get("accept-encoding"));
}
