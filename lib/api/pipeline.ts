import "server-only";
import { ApiError, errorMessage } from "@/lib/api/errors";
import { config, type Config } from "@/lib/config";
import {
  baseHeaders,
  bodyAround,
  errorResult,
  FRONT_REQUEST_ID,
  JSON_TYPE,
  KeyedRefusal,
  methodNotAllowed,
  newRequestId,
  originAllowed,
  preflightHeaders,
  rateLimitHeaders,
  toApiError,
  type SerializedData,
} from "@/lib/api/responses";
import { fromWebRequest, toResponse, type ApiRequest, type ApiResult, type RequestHeaders } from "@/lib/api/result";
import type { ResolvedKey } from "@/lib/keys/api-key";
import type { LimitDecision } from "@/lib/ratelimit";
import type { Root } from "@/lib/root";
import { iso6 } from "@/lib/time-format";

// The one admission wrapper of /v1 and MCP, in this order: request id -> CORS (a foreign Origin
// refused where the surface says so, the preflight answered) -> method (the address throttle is
// spent first) -> address throttle -> key -> the key's windows -> the answer (the endpoint parses
// its parameters and runs its handler) -> envelope and headers -> metering -> errors in the spec's
// shape. Plain async: every step awaits what it needs.

export { KeyedRefusal, rateLimitHeaders, toApiError } from "@/lib/api/responses";

/**
 * The collaborators a request uses, built from the composition root at the edge (the server's
 * start, a route file) and handed down: handlers and read models take what they need from here.
 */
export type Services = Pick<
  Root,
  "config" | "clock" | "database" | "db" | "read" | "keys" | "limiter" | "meter" | "journals" | "metrics"
>;

export interface KeyedContext {
  services: Services;
  requestId: string;
  key: ResolvedKey;
  decision: LimitDecision;
  query: URLSearchParams;
  params: Record<string, string>;
}

/** What a handler returns: the `data`, plus members added to the common `meta`. */
export interface Payload {
  data: unknown;
  /** The body's start serialized already (a large value, once per read-model version), and the JSON that ends `data`. */
  serialized?: SerializedData;
  dataEnd?: string;
  meta?: Record<string, unknown>;
}

/** A file served through the same pipeline (snapshot bundles): body as is, no envelope. */
export interface RawPayload {
  raw: { body: Uint8Array | string; contentType: string; headers?: Record<string, string> };
}

export type Handler = (ctx: KeyedContext) => Promise<Payload>;
export type RawHandler = (ctx: KeyedContext) => Promise<Payload | RawPayload>;

/** What differs between the surfaces the wrapper admits. */
export interface Surface {
  /** Log tag, and the usage label for /v1. */
  label: string;
  /** Methods the route takes; null for a path that is no route (any method reaches it). */
  methods: readonly string[] | null;
  /** The Allow header of a refused method. */
  allow: string;
  preflight(origin: string): Record<string, string>;
  /** A present Origin that is not ours is refused with 403 (MCP, against DNS rebinding). */
  refuseForeignOrigin?: { message: string };
  /** "required": no key, no answer; "presented": resolved and charged only when one is sent. */
  key: "required" | "presented";
  /** Whether admission spends from the key's windows (MCP spends per tool call instead). */
  windows: boolean;
  /** Meter the answer under `label` (MCP meters each tool call itself). */
  meter: boolean;
  /** A check between the address throttle and the key (MCP: no key in the URL). */
  beforeKey?(request: ApiRequest): void;
}

/** What the answer step gets: the request's id and base headers, and the key once admitted. */
export interface Admitted {
  services: Services;
  requestId: string;
  base: Record<string, string>;
  key: ResolvedKey | null;
  decision: LimitDecision | null;
}

export function commonMeta(config: Services["config"], generatedAt: string): Record<string, unknown> {
  return { attribution: config.ATTRIBUTION, license: config.licenseUrl, termsUrl: config.termsUrl, generatedAt };
}

/** The success body: the handler's `data`, and the common `meta` with the handler's members added. */
export function envelope(services: Services, payload: Payload): { data: unknown; meta: Record<string, unknown> } {
  return {
    data: payload.data,
    meta: { ...commonMeta(services.config, iso6(new Date(services.clock.now()))), ...payload.meta },
  };
}

/** The key from `Authorization: Bearer` or `X-API-Key`; both with different keys is refused. */
export function presentedKey(headers: RequestHeaders): string {
  const auth = headers.get("authorization");
  const header = headers.get("x-api-key")?.trim() || null;
  let bearer: string | null = null;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
    if (!m) throw new ApiError("invalid_api_key", { message: "The Authorization header must be 'Bearer <API_KEY>'." });
    bearer = m[1] ?? null;
  }
  if (bearer && header && bearer !== header) {
    throw new ApiError("invalid_api_key", {
      message: "Two different keys were sent in Authorization and X-API-Key. Send one key, in one header.",
    });
  }
  const key = bearer ?? header;
  if (!key) throw new ApiError("invalid_api_key");
  return key;
}

/**
 * The client address the throttle counts. scripts/server.mjs writes the socket's peer address
 * into `x-pmb-peer` (overwriting anything a client sent); Next.js itself only fills
 * `x-forwarded-for` when the client did not, so that header is trusted only with TRUST_PROXY,
 * and then its first entry is the client.
 */
export function clientAddress(headers: RequestHeaders, c: Pick<Config, "TRUST_PROXY"> = config()): string {
  if (c.TRUST_PROXY) {
    const first = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return headers.get("x-pmb-peer") || headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}

/** The pre-authentication throttle per client address; every request counts, keyed or not. */
export async function admitAddress(services: Services, headers: RequestHeaders): Promise<void> {
  const { limiter, clock, config, metrics } = services;
  const address = await limiter.throttle(clientAddress(headers, config), clock.now());
  if (address.allowed) return;
  metrics.rateLimit.inc({ window: "address", decision: "refused" });
  const retryAfter = address.retryAfter ?? 1;
  throw new ApiError("ip_rate_limited", {
    message: errorMessage("ip_rate_limited", { retryAfter }),
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** The presented key, resolved (revocation-aware, lib/keys); spends nothing. */
export async function authenticate(services: Services, headers: RequestHeaders): Promise<ResolvedKey> {
  const { keys } = services;
  const key = await keys.verify(presentedKey(headers));
  if (!key)
    throw new ApiError("invalid_api_key", {
      message: "This API key is not valid: it was revoked, rotated or never existed.",
    });
  return key;
}

/** Spends one request from both of the key's windows; a refusal is a KeyedRefusal (rate_limited or daily_limit_reached). */
export async function spendWindows(services: Services, key: ResolvedKey): Promise<LimitDecision> {
  const { limiter, clock, metrics } = services;
  const decision = await limiter.spend(key, clock.now());
  metrics.rateLimit.inc(
    decision.allowed
      ? { window: "key", decision: "allowed" }
      : { window: decision.limited === "day" ? "day" : "minute", decision: "refused" },
  );
  if (decision.allowed) return decision;
  const code = decision.limited === "day" ? "daily_limit_reached" : "rate_limited";
  const limit = code === "daily_limit_reached" ? decision.limitDay : decision.limitMinute;
  const retryAfter = decision.retryAfter ?? 1;
  throw new KeyedRefusal(
    new ApiError(code, {
      message: errorMessage(code, { limit, retryAfter }),
      headers: { "Retry-After": String(retryAfter) },
    }),
    key,
    decision,
  );
}

const keyPresented = (headers: RequestHeaders) => headers.has("authorization") || headers.has("x-api-key");

/**
 * Takes a request through the surface's admission, then `answer`; any failure becomes the spec's
 * error shape with the same base headers, and the key's rate-limit headers once it resolved.
 */
export async function withKey(
  services: Services,
  request: ApiRequest,
  surface: Surface,
  answer: (admitted: Admitted) => Promise<ApiResult>,
): Promise<ApiResult> {
  const requestId = request.headers.get(FRONT_REQUEST_ID) || newRequestId(); // one id when the front handed the request to Next
  const origin = request.headers.get("origin");
  const admitted: Admitted = {
    services,
    requestId,
    base: baseHeaders(requestId, origin, services.config),
    key: null,
    decision: null,
  };
  let result: ApiResult;
  let errorCode: string | null = null;
  try {
    if (surface.refuseForeignOrigin && origin !== null && !originAllowed(origin, services.config))
      throw new ApiError("error", { status: 403, message: surface.refuseForeignOrigin.message });
    if (
      request.method === "OPTIONS" &&
      origin &&
      originAllowed(origin, services.config) &&
      request.headers.get("access-control-request-method")
    ) {
      return { status: 204, headers: { "X-Request-Id": requestId, ...surface.preflight(origin) }, body: null };
    }
    await admitAddress(services, request.headers);
    if (surface.methods && !surface.methods.includes(request.method))
      throw methodNotAllowed(request.method, surface.allow);
    surface.beforeKey?.(request);
    if (surface.key === "required" || keyPresented(request.headers)) {
      const key = await authenticate(services, request.headers);
      if (surface.windows) admitted.decision = await spendWindows(services, key);
      admitted.key = key; // metered from here on (a refusal of its windows too, below)
    }
    result = await answer(admitted);
  } catch (caught) {
    let error = caught;
    if (caught instanceof KeyedRefusal) {
      admitted.key = caught.key;
      admitted.decision = caught.decision;
      error = caught.error;
    }
    const apiError = toApiError(error, requestId, surface.label, services.database);
    errorCode = apiError.code;
    result = errorResult(apiError, requestId, admitted.base, limitHeaders(admitted));
  }
  if (surface.meter && admitted.key) {
    services.meter.record(admitted.key.id, surface.label, result.status, services.clock.now(), {
      requestId,
      method: request.method,
      path: request.path ?? surface.label,
      errorCode,
    });
  }
  return result;
}

const limitHeaders = ({ decision, services }: Admitted) =>
  decision ? rateLimitHeaders(decision, services.clock.now()) : {};

const V1_METHODS = ["GET", "HEAD"] as const;

function v1Surface(label: string, methods: readonly string[] | null, key: Surface["key"]): Surface {
  return { label, methods, allow: "GET", preflight: preflightHeaders, key, windows: true, meter: true };
}

/** A /v1 endpoint's answer, whatever the transport: the handler's payload in the envelope, or a raw file. */
export function answerEndpoint(
  services: Services,
  endpoint: string,
  handler: RawHandler,
  request: ApiRequest,
): Promise<ApiResult> {
  return withKey(services, request, v1Surface(endpoint, V1_METHODS, "required"), async (admitted) => {
    const payload = await handler({
      services,
      requestId: admitted.requestId,
      key: admitted.key!,
      decision: admitted.decision!,
      query: request.query,
      params: request.params,
    });
    const headers = { ...admitted.base, ...limitHeaders(admitted) };
    if ("raw" in payload)
      return {
        status: 200,
        headers: { ...headers, "Content-Type": payload.raw.contentType, ...payload.raw.headers },
        body: payload.raw.body,
      };
    const { data, meta } = envelope(services, payload);
    const end = `${payload.dataEnd ?? ""},"meta":${JSON.stringify(meta)}}`;
    const body = payload.serialized ? bodyAround(payload.serialized, end) : { body: JSON.stringify({ data, meta }) };
    return { status: 200, headers: { "Content-Type": JSON_TYPE, ...headers }, ...body };
  });
}

/** The label unknown /v1 paths are metered under when a key was presented. */
const UNKNOWN_ENDPOINT = "/v1/*";

/**
 * A path under /v1 that is no endpoint: 404 in the spec's shape, for any method, after the
 * address throttle; a presented key is resolved and charged as for an endpoint.
 */
export function answerUnknown(services: Services, request: ApiRequest): Promise<ApiResult> {
  return withKey(services, request, v1Surface(UNKNOWN_ENDPOINT, null, "presented"), () => {
    throw new ApiError("not_found", { message: "No such endpoint. GET /v1 lists the endpoints." });
  });
}

function routeParams(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((raw ?? {}) as Record<string, unknown>))
    out[k] = Array.isArray(v) ? v.join("/") : String(v);
  return out;
}

type WebHandler = (request: Request, context: { params?: Promise<unknown> }) => Promise<Response>;
type RouteExports = Record<"GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", WebHandler>;

function everyMethod(run: WebHandler): RouteExports {
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}

/** The web adapter of an endpoint: the exports of its app/v1 route file, given the root there. */
export function apiRoute(services: () => Services, endpoint: string, handler: RawHandler): RouteExports {
  return everyMethod(async (request, context) => {
    const s = services();
    return toResponse(
      s,
      await answerEndpoint(s, endpoint, handler, fromWebRequest(request, routeParams(await context.params))),
    );
  });
}

/** The web adapter of unknown /v1 paths (app/v1/[...rest]). */
export function unknownRoute(services: () => Services): RouteExports {
  return everyMethod(async (request) => {
    const s = services();
    return toResponse(s, await answerUnknown(s, fromWebRequest(request)));
  });
}
