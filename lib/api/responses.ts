import { randomUUID } from "node:crypto";
import { corsHeaders } from "@/lib/api/cors";
import { ApiError, errorBody, errorMessage, isApiError } from "@/lib/api/errors";
import { RATE_LIMIT_HEADER, RATE_LIMIT_HEADERS as H, RATE_LIMIT_POLICY_HEADER } from "@/lib/api/rate-limit-headers";
import type { ApiResult } from "@/lib/api/result";
import { config } from "@/lib/config";
import { unavailableDependency } from "@/lib/db/unavailable";
import { isInvalidWindowError } from "@/lib/data/window";
import type { ResolvedKey } from "@/lib/keys/key-cache";
import type { LimitDecision } from "@/lib/ratelimit";
import { isoSeconds } from "@/lib/time-format";

// The answers every surface outside Next's pages gives: the request id, the base headers, the
// rate-limit headers, and the mapping of any failure to the spec's error shape. The admission
// wrapper (lib/api/pipeline.ts) and the production server's own answers use them.

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
    [H.limitMinute]: String(d.limitMinute),
    [H.remainingMinute]: String(d.remainingMinute),
    [H.limitDay]: String(d.limitDay),
    [H.remainingDay]: String(d.remainingDay),
    [H.resetMinute]: String(d.resetMinute),
    [H.resetDay]: String(d.resetDay),
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
export function baseHeaders(requestId: string, origin: string | null): Record<string, string> {
  return { "X-Request-Id": requestId, "Cache-Control": "no-store", ...corsHeaders(origin) };
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
