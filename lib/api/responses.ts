import { randomUUID } from "node:crypto";
import zlib from "node:zlib";
import { ApiError, errorBody, errorMessage, isApiError } from "@/lib/api/errors";
import type { ApiResult } from "@/lib/api/result";
import { config, type Config } from "@/lib/config";
import { unavailableDependency } from "@/lib/db/unavailable";
import { isInvalidWindowError } from "@/lib/data/window";
import type { ResolvedKey } from "@/lib/keys/api-key";
import type { LimitDecision } from "@/lib/ratelimit";
import { isoSeconds } from "@/lib/time-format";

// The answers every surface outside Next's pages gives: the request id, the base headers, the
// rate-limit headers, and the mapping of any failure to the spec's error shape. The admission
// wrapper (lib/api/pipeline.ts) and the production server's own answers use them; the CORS
// headers and preflights of every credentialed surface.

/**
 * The rate-limit headers every keyed answer carries, named once: the pipeline writes them, CORS
 * exposes them to browsers, the OpenAPI document lists them. Each member is the LimitDecision
 * field the header reports, in the order the headers are written.
 */
export const RATE_LIMIT_HEADERS = {
  limitMinute: "X-RateLimit-Limit",
  remainingMinute: "X-RateLimit-Remaining",
  limitDay: "X-RateLimit-Limit-Day",
  remainingDay: "X-RateLimit-Remaining-Day",
  resetMinute: "X-RateLimit-Reset",
  resetDay: "X-RateLimit-Reset-Day",
} as const;

/** The IETF draft's structured headers, written beside the six above. */
export const RATE_LIMIT_POLICY_HEADER = "RateLimit-Policy";
export const RATE_LIMIT_HEADER = "RateLimit";

/** A refusal after the key resolved: it carries the rate-limit headers and is metered. */
export class KeyedRefusal extends Error {
  constructor(
    readonly error: ApiError,
    readonly key: ResolvedKey,
    readonly decision: LimitDecision,
  ) {
    super(error.message);
  }
}

/** The six X-RateLimit-* headers, and the IETF draft RateLimit-Policy / RateLimit beside them. */
export function rateLimitHeaders(d: LimitDecision, nowMs: number): Record<string, string> {
  const now = Math.floor(nowMs / 1000);
  return {
    [RATE_LIMIT_HEADERS.limitMinute]: String(d.limitMinute),
    [RATE_LIMIT_HEADERS.remainingMinute]: String(d.remainingMinute),
    [RATE_LIMIT_HEADERS.limitDay]: String(d.limitDay),
    [RATE_LIMIT_HEADERS.remainingDay]: String(d.remainingDay),
    [RATE_LIMIT_HEADERS.resetMinute]: String(d.resetMinute),
    [RATE_LIMIT_HEADERS.resetDay]: String(d.resetDay),
    [RATE_LIMIT_POLICY_HEADER]: `"minute";q=${d.limitMinute};w=60, "day";q=${d.limitDay};w=86400`,
    [RATE_LIMIT_HEADER]: `"minute";r=${d.remainingMinute};t=${Math.max(0, d.resetMinute - now)}, "day";r=${d.remainingDay};t=${Math.max(0, d.resetDay - now)}`,
  };
}

export const JSON_TYPE = "application/json; charset=utf-8";

/** A JSON answer. */
export function jsonResult(body: unknown, status: number, headers: Record<string, string>): ApiResult {
  return { status, headers: { "Content-Type": JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/** Maps any failure to the one error shape; unknown faults are logged (one line), never echoed. */
export function toApiError(
  error: unknown,
  requestId: string,
  where: string,
  database?: { noteUnavailable(error: unknown): void },
): ApiError {
  if (isApiError(error)) return error;
  if (isInvalidWindowError(error)) {
    return new ApiError("invalid_window", {
      message: errorMessage("invalid_window", { start: isoSeconds(error.start), end: isoSeconds(error.end) }),
    });
  }
  // A dependency that cannot serve now (lib/db/unavailable.ts): 503, and for the database one
  // log line per outage (lib/db.ts), not one per request.
  const dependency = unavailableDependency(error);
  if (dependency) {
    if (dependency === "database") database?.noteUnavailable(error);
    return new ApiError("unavailable");
  }
  console.error(`[${where}] requestId=${requestId} ${(error as Error)?.stack ?? String(error)}`);
  return new ApiError("internal_error");
}

/**
 * The answer for an error: the spec's JSON shape, its headers, and the key's rate-limit headers
 * (`limits`, when the key resolved) unless the error is about the key or the address.
 */
export function errorResult(
  apiError: ApiError,
  requestId: string,
  base: Record<string, string> = baseHeaders(requestId, null),
  limits: Record<string, string> = {},
): ApiResult {
  const authed = apiError.code !== "invalid_api_key" && apiError.code !== "ip_rate_limited";
  const headers = {
    ...base,
    ...(authed ? limits : {}),
    ...(apiError.code === "invalid_api_key" ? { "WWW-Authenticate": 'Bearer realm="api"' } : {}),
    ...apiError.headers,
  };
  return jsonResult(errorBody(apiError.code, apiError.message, requestId, config().baseUrl), apiError.status, headers);
}

/** X-Request-Id, no caching, and CORS for an allowed Origin. */
export function baseHeaders(requestId: string, origin: string | null, c?: Config): Record<string, string> {
  return { "X-Request-Id": requestId, "Cache-Control": "no-store", ...corsHeaders(origin, c) };
}

/** The request header in which the server's front passes the answer's X-Request-Id to Next (it overwrites a client's). */
export const FRONT_REQUEST_ID = "x-pmb-request-id";

export function newRequestId(): string {
  return randomUUID();
}

/** The 405 for a method the route does not take. */
export function methodNotAllowed(method: string, allow: string): ApiError {
  return new ApiError("method_not_allowed", {
    message: errorMessage("method_not_allowed", { method: method.slice(0, 32), allow }),
    headers: { Allow: allow },
  });
}

/** Origins whose browser code may call the API: our own, plus localhost outside production. */
export function originAllowed(
  origin: string,
  c: Pick<Config, "baseUrl" | "ALLOWED_ORIGINS" | "NODE_ENV"> = config(),
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const own = new Set([
    new URL(c.baseUrl).origin,
    ...(c.ALLOWED_ORIGINS?.split(",")
      .map((o) => o.trim())
      .filter(Boolean) ?? []),
  ]);
  if (own.has(url.origin)) return true;
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  return local && c.NODE_ENV !== "production";
}

export const EXPOSED_HEADERS = [
  "X-Request-Id",
  ...Object.values(RATE_LIMIT_HEADERS),
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  "Retry-After",
].join(", ");

export function corsHeaders(origin: string | null, c?: Config): Record<string, string> {
  if (!origin || !originAllowed(origin, c)) return {};
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED_HEADERS, Vary: "Origin" };
}

/** The request headers every credentialed surface accepts from a browser: the two key headers and a body's type. */
const ALLOWED_HEADERS = ["Authorization", "X-API-Key", "Content-Type"];

/**
 * The answer to a CORS preflight from an allowed origin: the surface's methods (OPTIONS added)
 * and, beyond the key headers, any request headers of its own (MCP's `Accept`,
 * `Mcp-Protocol-Version`); browsers may cache it for ten minutes.
 */
export function preflightFor(
  methods: readonly string[],
  extraHeaders: readonly string[] = [],
): (origin: string) => Record<string, string> {
  const allowMethods = [...methods, "OPTIONS"].join(", ");
  const allowHeaders = [...ALLOWED_HEADERS, ...extraHeaders].join(", ");
  return (origin) => ({
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": allowMethods,
    "Access-Control-Allow-Headers": allowHeaders,
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  });
}

/** The /v1 preflight: GET only. */
export const preflightHeaders = preflightFor(["GET"]);

/**
 * The start of a large answer's body as bytes, made once per version of its read model (a 90-day
 * history): `{"data":` and the data's JSON up to where each answer's own part begins; and its
 * deflate, made when a gzip client first asks.
 */
export interface SerializedData {
  start: Buffer;
  head?: { deflated: Buffer; crc: number };
}

export const serializedData = (dataJson: string): SerializedData => ({ start: Buffer.from(`{"data":${dataJson}`) });

/** A gzip member's header: deflate, no name, no time, unknown OS (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** The body `start` + `end` as the parts of one gzip member: the start's deflate kept in `data`, the end deflated now. */
export function gzipEnvelope(data: SerializedData, end: Buffer): Buffer[] {
  // A full flush ends the start's deflate on a byte boundary with nothing it refers back to: the end's own deflate follows it.
  data.head ??= {
    deflated: zlib.deflateRawSync(data.start, { finishFlush: zlib.constants.Z_FULL_FLUSH }),
    crc: zlib.crc32(data.start),
  };
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(end, data.head.crc) >>> 0, 0);
  trailer.writeUInt32LE((data.start.length + end.length) % 2 ** 32, 4);
  return [GZIP_HEADER, data.head.deflated, zlib.deflateRawSync(end), trailer];
}

/** The success body as parts (no answer copies the cached start): the start, then `end` (the data's rest, the meta); and its gzip. */
export function bodyAround(data: SerializedData, end: string): { body: Buffer[]; gzip: () => Buffer[] } {
  const bytes = Buffer.from(end);
  return { body: [data.start, bytes], gzip: () => gzipEnvelope(data, bytes) };
}
