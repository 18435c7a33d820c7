import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { endpoints, type Endpoint } from "@/lib/api/endpoints";
import { ApiError } from "@/lib/api/errors";
import { answerEndpoint, answerUnknown, type Services } from "@/lib/api/pipeline";
import { isParts, type ApiRequest, type ApiResult, type RequestHeaders } from "@/lib/api/result";
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

/** The path's segments after its first slash, decoded, `.` and `..` resolved (`/a//b` -> ["a", "", "b"]); null when a segment is not valid percent-encoding. */
export function pathSegments(path: string): string[] | null {
  const out: string[] = [];
  for (const part of path.split("/").slice(1)) {
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
 * The request's headers as lib/api reads them: names case-insensitive, repeated fields joined as
 * a web `Headers` joins them (", ", "; " for Cookie). `x-pmb-peer` is the one the server set from
 * the socket (scripts/server.mjs), never a client's.
 */
export class NodeRequestHeaders implements RequestHeaders {
  private readonly map = new Map<string, string>();

  constructor(req: IncomingMessage, peer: string) {
    for (const [name, values] of Object.entries(req.headersDistinct))
      if (values) this.map.set(name, values.join(name === "cookie" ? "; " : ", "));
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
  /** The bytes to send, in parts written one after another. */
  body: readonly Uint8Array[];
}

const byteLength = (parts: readonly Uint8Array[]) => parts.reduce((n, part) => n + part.byteLength, 0);

/**
 * The body to write for a client's Accept-Encoding: gzip for a compressible body of COMPRESS_AT
 * bytes or more, else as it is; a compressible body carries `Vary: Accept-Encoding` either way,
 * since another client may get it encoded.
 */
export function encodeBody(
  body: ApiResult["body"],
  contentType: string | undefined,
  acceptEncoding: string | null | undefined,
  gzip?: () => readonly Uint8Array[],
): Encoded {
  const parts = body === null ? [] : typeof body === "string" ? [Buffer.from(body)] : isParts(body) ? body : [body];
  const length = byteLength(parts);
  if (length === 0 || !compressible(contentType)) return { headers: {}, body: parts };
  if (length >= COMPRESS_AT && acceptsGzip(acceptEncoding))
    return {
      headers: { "Content-Encoding": "gzip", Vary: "Accept-Encoding" },
      body: gzip ? gzip() : [zlib.gzipSync(Buffer.concat(parts))],
    };
  return { headers: { Vary: "Accept-Encoding" }, body: parts };
}

/**
 * The result on the wire: the security headers, the result's headers (Content-Length and
 * Set-Cookie dropped), the encoding's headers (Vary merged), Content-Length unless the status has
 * no body, and the body encoded for the client.
 */
function writeNow(req: IncomingMessage, res: ServerResponse, result: ApiResult, acceptEncoding: string | null): void {
  const head = req.method === "HEAD";
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  for (const [key, value] of Object.entries(result.headers))
    if (!/^(content-length|set-cookie)$/i.test(key)) res.setHeader(key, value);
  const contentType = res.getHeader("content-type") as string | undefined;
  const encoded = encodeBody(result.body, contentType, head ? undefined : acceptEncoding, result.gzip);
  for (const [key, value] of Object.entries(encoded.headers)) {
    const vary = key === "Vary" ? String(res.getHeader("vary") ?? "") : null;
    if (vary === null) res.setHeader(key, value);
    else if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) res.setHeader("Vary", vary ? `${vary}, ${value}` : value);
  }
  if (result.status !== 204 && result.status !== 304) res.setHeader("Content-Length", byteLength(encoded.body));
  res.writeHead(result.status);
  // The parts of one turn leave in one write (Node corks a response's writes until the turn ends).
  if (!(head || result.status === 204 || result.status === 304)) for (const part of encoded.body) res.write(part);
  res.end();
}

/**
 * Writes the answer; a fault in writing it is logged and ends the response. `acceptEncoding` as
 * the caller read it (null: none sent); left out, it is read from `req.headers`.
 */
export function writeResult(
  req: IncomingMessage,
  res: ServerResponse,
  result: ApiResult,
  acceptEncoding: string | null = req.headers["accept-encoding"] ?? null,
): void {
  try {
    writeNow(req, res, result, acceptEncoding);
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
    headers = new NodeRequestHeaders(req, peer);
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
  // What the request charged is written before the answer leaves (one write a turn: lib/plumbing/journal.ts).
  await services.journals.written();
  writeResult(req, res, result, headers.get("accept-encoding"));
}
