import { randomUUID } from "node:crypto";
import { corsHeaders, originAllowed } from "@/lib/api/cors";
import { ApiError, errorBody, errorMessage, isApiError } from "@/lib/api/errors";
import { jsonChunks } from "@/lib/api/json-body";
import { RATE_LIMIT_HEADER, RATE_LIMIT_HEADERS as H, RATE_LIMIT_POLICY_HEADER } from "@/lib/api/rate-limit-headers";
import type { ApiRequest, ApiResult, RequestHeaders } from "@/lib/api/result";
import { config } from "@/lib/config";
import { unavailableDependency } from "@/lib/db/unavailable";
import { root } from "@/lib/root";
import { isInvalidWindowError } from "@/lib/data/window";
import type { ResolvedKey } from "@/lib/keys/key-cache";
import type { LimitDecision } from "@/lib/ratelimit";
import { isoSeconds } from "@/lib/time-format";
import { isPromise, type Awaitable } from "@/lib/plumbing/awaitable";

// The one request shell of every answer the service gives outside Next's pages: a request id,
// CORS and preflight, the method check and the mapping of any failure to the spec's error
// shape. /v1 endpoints, unknown /v1 paths, /mcp and the production server's own answers (a bad
// path, an unknown method, a request Node could not parse) all go through it.

/** A key resolved for this request and its windows after admission. */
export interface Keyed {
  key: ResolvedKey;
  decision: LimitDecision;
}

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

export interface Surface {
  /** Log tag (and, for /v1, the usage label). */
  label: string;
  /** Methods the route takes (HEAD goes with GET); null for a path that is no route (any method reaches it). */
  methods: readonly string[] | null;
  /** The Allow header of a refused method. */
  allow: string;
  /** Preflight headers for an allowed Origin. */
  preflight(origin: string): Record<string, string>;
  /** A present Origin that is not ours is refused with 403 (MCP, against DNS rebinding). */
  refuseForeignOrigin?: { message: string };
  /** The per-address throttle, spent before a method is refused. */
  throttle(headers: RequestHeaders): Promise<void>;
  /** Called once with the final status when a key was resolved (usage metering and the request log). */
  done?(keyed: Keyed, status: number, answer: Answered): void;
}

/** What the request log keeps of an answer besides its status. */
export interface Answered {
  requestId: string;
  method: string;
  /** Path and query as requested. */
  path: string;
  /** The error code when the answer is an error. */
  errorCode: string | null;
}

export interface ShellContext {
  requestId: string;
  /** Headers every answer of this request carries: X-Request-Id, Cache-Control, CORS. */
  base: Record<string, string>;
  /** Set by the answer once the key is resolved: its rate-limit headers go on errors too. */
  keyed: Keyed | null;
}

/** The six X-RateLimit-* headers, and the IETF draft RateLimit-Policy / RateLimit beside them. */
export function rateLimitHeaders(d: LimitDecision, nowMs = Date.now()): Record<string, string> {
  return addRateLimitHeaders({}, d, nowMs);
}

/** `rateLimitHeaders`, added to `headers` (the hot path builds one object, not several to spread). */
export function addRateLimitHeaders(headers: Record<string, string>, d: LimitDecision, nowMs = Date.now()): Record<string, string> {
  const now = Math.floor(nowMs / 1000);
  headers[H.limitMinute] = String(d.limitMinute);
  headers[H.remainingMinute] = String(d.remainingMinute);
  headers[H.limitDay] = String(d.limitDay);
  headers[H.remainingDay] = String(d.remainingDay);
  headers[H.resetMinute] = String(d.resetMinute);
  headers[H.resetDay] = String(d.resetDay);
  headers[RATE_LIMIT_POLICY_HEADER] = `"minute";q=${d.limitMinute};w=60, "day";q=${d.limitDay};w=86400`;
  headers[RATE_LIMIT_HEADER] = `"minute";r=${d.remainingMinute};t=${Math.max(0, d.resetMinute - now)}, "day";r=${d.remainingDay};t=${Math.max(0, d.resetDay - now)}`;
  return headers;
}

export const JSON_TYPE = "application/json; charset=utf-8";

/** A JSON answer; frozen read-model values inside `body` keep their serialized bytes (json-body.ts). */
export function jsonResult(body: unknown, status: number, headers: Record<string, string>): ApiResult {
  return { status, headers: { "Content-Type": JSON_TYPE, ...headers }, body: jsonChunks(body) };
}

/** Maps any failure to the one error shape; unknown faults are logged (one line), never echoed. */
export function toApiError(error: unknown, requestId: string, where: string): ApiError {
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
    if (dependency === "database") root().database.noteUnavailable(error);
    return new ApiError("unavailable");
  }
  console.error(`[${where}] requestId=${requestId} ${(error as Error)?.stack ?? String(error)}`);
  return new ApiError("internal_error");
}

/** The answer for an error: the spec's JSON shape, its headers, the key's rate-limit headers when it resolved. */
export function errorResult(apiError: ApiError, requestId: string, base: Record<string, string> = baseHeaders(requestId, null), keyed: Keyed | null = null): ApiResult {
  const authed = keyed && apiError.code !== "invalid_api_key" && apiError.code !== "ip_rate_limited";
  const headers = {
    ...base,
    ...(authed && keyed ? rateLimitHeaders(keyed.decision, root().clock.now()) : {}),
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

/**
 * Runs `answer` inside the shell: request id -> foreign Origin (when refused) -> preflight ->
 * method (the address throttle is spent first) -> the answer; any failure becomes the spec's
 * error shape with the same base headers. An answer given at once is returned at once (the
 * /v1 hot path, lib/awaitable.ts); one given as a promise, as a promise.
 */
export function shell(request: ApiRequest, surface: Surface, answer: (ctx: ShellContext) => Awaitable<ApiResult>): Awaitable<ApiResult> {
  // A request the front handed to Next already carries its id in the answer's headers: keep one id.
  const requestId = request.headers.get(FRONT_REQUEST_ID) || newRequestId();
  const origin = request.headers.get("origin");
  const ctx: ShellContext = { requestId, base: baseHeaders(requestId, origin), keyed: null };
  /** The final answer: metered once, with its status, when a key was resolved. */
  const done = (result: ApiResult, errorCode: string | null = null): ApiResult => {
    if (ctx.keyed) surface.done?.(ctx.keyed, result.status, { requestId, method: request.method, path: request.path ?? surface.label, errorCode });
    return result;
  };
  const failed = (caught: unknown): ApiResult => {
    let error: unknown = caught;
    if (caught instanceof KeyedRefusal) {
      ctx.keyed = { key: caught.key, decision: caught.decision };
      error = caught.error;
    }
    const apiError = toApiError(error, requestId, surface.label);
    return done(errorResult(apiError, requestId, ctx.base, ctx.keyed), apiError.code);
  };
  let result: Awaitable<ApiResult>;
  try {
    if (surface.refuseForeignOrigin && origin !== null && !originAllowed(origin)) {
      throw new ApiError("error", { status: 403, message: surface.refuseForeignOrigin.message });
    }
    if (request.method === "OPTIONS" && origin && originAllowed(origin) && request.headers.get("access-control-request-method")) {
      return { status: 204, headers: { "X-Request-Id": requestId, ...surface.preflight(origin) }, body: null };
    }
    if (surface.methods && !surface.methods.includes(request.method)) {
      result = surface.throttle(request.headers).then(() => {
        throw methodNotAllowed(request.method, surface.allow);
      });
    } else result = answer(ctx);
  } catch (caught) {
    return failed(caught);
  }
  return isPromise(result) ? result.then((r) => done(r), failed) : done(result);
}
