import { joinSmall } from "@/lib/api/json-body";
import { root } from "@/lib/root";

/**
 * What lib/api answers a request with, whatever carries it: status, headers in order, and the
 * body as text or as parts (reused JSON bytes between per-request pieces, lib/api/json-body.ts).
 * Two adapters write it: `toResponse` for route handlers and MCP (a web Response), and
 * lib/api/node-adapter.ts for the production server (node:http).
 */
export interface ApiResult {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array[] | null;
}

/** Request headers as lib/api reads them: a web `Headers`, or the node:http adapter's view. */
export interface RequestHeaders {
  /** The value, repeated fields joined as `Headers` joins them; null when absent. Names are case-insensitive. */
  get(name: string): string | null;
  has(name: string): boolean;
}

/** The request as lib/api reads it, from either transport. */
export interface ApiRequest {
  method: string;
  headers: RequestHeaders;
  query: URLSearchParams;
  /** Path parameters, e.g. `{ ticker }`. */
  params: Record<string, string>;
  /** The path and query as requested (the request log shows it). */
  path?: string;
}

/**
 * A web Response carrying the result: a small body's parts joined into one buffer, a large one's
 * streamed as they are. What the request was charged is written to the journals first
 * (lib/plumbing/journal.ts).
 */
export function toResponse(result: ApiResult): Response {
  root().journals.flush();
  const { status, headers, body } = result;
  if (body === null || typeof body === "string") return new Response(body, { status, headers });
  const parts = joinSmall(body);
  // Our parts are never views of a SharedArrayBuffer (json-body.ts, snapshot files).
  if (parts.length === 1) return new Response(parts[0] as Uint8Array<ArrayBuffer>, { status, headers });
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = parts[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
  return new Response(stream, { status, headers });
}

/** The body's length in bytes. */
export function bodyLength(body: ApiResult["body"]): number {
  if (body === null) return 0;
  if (typeof body === "string") return Buffer.byteLength(body, "utf8");
  let n = 0;
  for (const part of body) n += part.byteLength;
  return n;
}

/** A request read from a web Request (route handlers, MCP). */
export function fromWebRequest(request: Request, params: Record<string, string> = {}): ApiRequest {
  const url = new URL(request.url);
  return { method: request.method, headers: request.headers, query: url.searchParams, params, path: url.pathname + url.search };
}
