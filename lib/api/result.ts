import type { Journals } from "@/lib/plumbing/journal";

/**
 * What lib/api answers a request with, whatever carries it: status, headers in order, and the
 * body. Two adapters write it: `toResponse` for route handlers and MCP (a web Response), and
 * lib/api/node-adapter.ts for the production server (node:http).
 */
export interface ApiResult {
  status: number;
  headers: Record<string, string>;
  /** A large answer's body as its parts, in order: bytes cached per read-model version, then this answer's own end. */
  body: string | Uint8Array | readonly Uint8Array[] | null;
  /** The body gzip-encoded from cached bytes, its parts in order, when the answer has them (the node:http adapter uses it). */
  gzip?: () => readonly Uint8Array[];
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

/** A web Response carrying the result; what the request was charged is written to the journals first (lib/plumbing/journal.ts). */
export function toResponse({ journals }: { journals: Journals }, result: ApiResult): Response {
  journals.flush();
  const body = isParts(result.body) ? Buffer.concat(result.body) : result.body;
  // Our bodies are never views of a SharedArrayBuffer (snapshot files, encoded text).
  return new Response(body as string | Uint8Array<ArrayBuffer> | null, {
    status: result.status,
    headers: result.headers,
  });
}

export const isParts = (body: ApiResult["body"]): body is readonly Uint8Array[] => Array.isArray(body);

/** A request read from a web Request (route handlers, MCP). */
export function fromWebRequest(request: Request, params: Record<string, string> = {}): ApiRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    headers: request.headers,
    query: url.searchParams,
    params,
    path: url.pathname + url.search,
  };
}
