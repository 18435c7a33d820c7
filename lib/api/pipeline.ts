import "server-only";
import { randomUUID } from "node:crypto";
import { ApiError, errorBody, errorMessage } from "@/lib/api/errors";
import { clientAddress } from "@/lib/api/client-address";
import { corsHeaders, originAllowed, preflightHeaders } from "@/lib/api/cors";
import { iso6 } from "@/lib/api/format";
import { handoffResponse, wantsHandoff } from "@/lib/api/direct-handoff";
import { jsonBody, jsonChunks } from "@/lib/api/json-body";
import { keyLimits, limiterStore } from "@/lib/api/limiter";
import { meter } from "@/lib/api/metering";
import { config } from "@/lib/config";
import { isUnavailableError } from "@/lib/db";
import { applyEpoch, peekKey, readEpoch, syncEpoch, type ResolvedKey } from "@/lib/keys/key-cache";
import { hashKey, looksLikeKey } from "@/lib/keys/key-format";
import { verifyKey } from "@/lib/keys/verify-key";
import { throttle, throttleThenConsume, type LimitDecision, type ThrottleDecision } from "@/lib/ratelimit";

export interface KeyedContext {
  requestId: string;
  key: ResolvedKey;
  decision: LimitDecision;
  query: URLSearchParams;
  params: Record<string, string>;
}

/** What a handler returns: the `data`, plus members added to the common `meta`. */
export interface Payload {
  data: unknown;
  meta?: Record<string, unknown>;
}

/** A file served through the same pipeline (snapshot bundles): body as is, no envelope. */
export interface RawPayload {
  raw: { body: Uint8Array | string; contentType: string; headers?: Record<string, string> };
}

export type Handler = (ctx: KeyedContext) => Promise<Payload>;
export type RawHandler = (ctx: KeyedContext) => Promise<Payload | RawPayload>;

const ALLOW = "GET";

/** The six X-RateLimit-* headers, and the IETF draft RateLimit-Policy / RateLimit beside them. */
export function rateLimitHeaders(d: LimitDecision, nowMs = Date.now()): Record<string, string> {
  const now = Math.floor(nowMs / 1000);
  return {
    "X-RateLimit-Limit": String(d.limitMinute),
    "X-RateLimit-Remaining": String(d.remainingMinute),
    "X-RateLimit-Limit-Day": String(d.limitDay),
    "X-RateLimit-Remaining-Day": String(d.remainingDay),
    "X-RateLimit-Reset": String(d.resetMinute),
    "X-RateLimit-Reset-Day": String(d.resetDay),
    "RateLimit-Policy": `"minute";q=${d.limitMinute};w=60, "day";q=${d.limitDay};w=86400`,
    RateLimit: `"minute";r=${d.remainingMinute};t=${Math.max(0, d.resetMinute - now)}, "day";r=${d.remainingDay};t=${Math.max(0, d.resetDay - now)}`,
  };
}

export function commonMeta(): Record<string, unknown> {
  const c = config();
  return { attribution: c.ATTRIBUTION, license: c.licenseUrl, termsUrl: c.termsUrl, generatedAt: iso6(new Date()) };
}

/** The success body: the handler's `data`, and the common `meta` with the handler's members added. */
export function envelope(payload: Payload): { data: unknown; meta: Record<string, unknown> } {
  return { data: payload.data, meta: { ...commonMeta(), ...payload.meta } };
}

/** The key from `Authorization: Bearer` or `X-API-Key`; both with different keys is refused. */
export function presentedKey(headers: Headers): string {
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
 * A JSON response, reusing the serialized JSON of frozen read-model values (lib/api/json-body.ts);
 * for the direct dispatcher its parts are handed over as they are (lib/api/direct-handoff.ts).
 */
function json(request: Request, body: unknown, status: number, headers: Record<string, string>): Response {
  const all = { "Content-Type": "application/json; charset=utf-8", ...headers };
  if (wantsHandoff(request)) return handoffResponse({ status, headers: all, body: jsonChunks(body) });
  return new Response(jsonBody(body), { status, headers: all });
}

/**
 * Admission for a keyed call (used by /v1 and MCP): address throttle, key, both windows.
 *
 * A key this instance has resolved before takes one Redis round trip: the rate-limit script (the
 * address throttle, then the key's windows only when the address is admitted) and the read of the
 * revocation epoch are sent together (ioredis pipelines commands issued in the same tick). The
 * answer still honours the epoch: when it moved the key is resolved again, and a key that no
 * longer resolves is refused (the slot its dead log took is never read again). Any other key is
 * looked up only once the address is admitted, so a flood of unknown keys is throttled before it
 * reaches the database.
 */
export async function admit(headers: Headers): Promise<{ key: ResolvedKey; decision: LimitDecision }> {
  const hinted = knownKey(headers);
  if (hinted) {
    const epoch = readEpoch();
    epoch?.catch(() => undefined); // awaited below; a refusal must not leave it unhandled
    const both = await throttleThenConsume(limiterStore(), clientAddress(headers), hinted.key.id, keyLimits(hinted.key), Date.now(), {
      limit: config().IP_LIMIT_MINUTE,
    });
    if (!both.address.allowed || !both.key) throw addressRefusal(both.address);
    const key = await authenticate(headers, epoch ? epoch.then(applyEpoch) : Promise.resolve(), hinted);
    // A key's id and limits never change once minted (rotation mints a new key), so the windows
    // spent under the hint are the resolved key's.
    return { key, decision: admitted(key, both.key) };
  }
  const synced = syncEpoch();
  synced.catch(() => undefined); // awaited below; a throttle refusal must not leave it unhandled
  await admitAddressOnly(headers);
  const key = await authenticate(headers, synced);
  return { key, decision: await spendWindows(key) };
}

interface KnownKey {
  presented: string;
  hash: string;
  key: ResolvedKey;
}

/** The presented key as this instance last resolved it, or null (unknown, absent or malformed). */
function knownKey(headers: Headers): KnownKey | null {
  let presented: string;
  try {
    presented = presentedKey(headers);
  } catch {
    return null;
  }
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const key = peekKey(hash);
  return key ? { presented, hash, key } : null;
}

/**
 * The presented key, resolved; spends nothing (MCP checks it on every message, spends per tool
 * call). `synced` is the revocation-epoch read already made for this request; `known` the key
 * as already read from the headers and hashed.
 */
export async function authenticate(headers: Headers, synced?: Promise<void>, known?: { presented: string; hash: string }): Promise<ResolvedKey> {
  const presented = known?.presented ?? presentedKey(headers);
  const key = await verifyKey(presented, synced, known?.hash);
  if (!key) {
    throw new ApiError("invalid_api_key", { message: "This API key is not valid: it was revoked, rotated or never existed." });
  }
  return key;
}

/** Spends one request from both of the key's windows; a refusal is a KeyedRefusal. */
export async function spendWindows(key: ResolvedKey): Promise<LimitDecision> {
  return admitted(key, await limiterStore().consume(key.id, keyLimits(key), Date.now()));
}

/** The decision when it admitted; a refusal becomes a KeyedRefusal (rate_limited or daily_limit_reached). */
function admitted(key: ResolvedKey, decision: LimitDecision): LimitDecision {
  if (!decision.allowed) {
    const code = decision.limited === "day" ? "daily_limit_reached" : "rate_limited";
    const limit = code === "daily_limit_reached" ? decision.limitDay : decision.limitMinute;
    throw new KeyedRefusal(
      new ApiError(code, {
        message: errorMessage(code, { limit, retryAfter: decision.retryAfter ?? 1 }),
        headers: { "Retry-After": String(decision.retryAfter ?? 1) },
      }),
      key,
      decision,
    );
  }
  return decision;
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

/** Maps any failure to the one error shape; unknown faults are logged, never echoed. */
export function toApiError(error: unknown, requestId: string, where: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isUnavailableError(error)) {
    return new ApiError("unavailable", { headers: { "Retry-After": "5" } });
  }
  console.error(`[${where}] requestId=${requestId} ${(error as Error)?.stack ?? String(error)}`);
  return new ApiError("internal_error");
}

function routeParams(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((raw ?? {}) as Record<string, unknown>)) out[k] = Array.isArray(v) ? v.join("/") : String(v);
  return out;
}

/**
 * The /v1 pipeline: X-Request-Id -> CORS -> address throttle -> method -> key -> key windows
 * -> handler (which validates its parameters) -> envelope, headers and metering.
 */
export function apiRoute(endpoint: string, handler: RawHandler) {
  const run = async (request: Request, context: { params?: Promise<unknown> }): Promise<Response> => {
    const requestId = randomUUID();
    const origin = request.headers.get("origin");
    const base: Record<string, string> = { "X-Request-Id": requestId, "Cache-Control": "no-store", ...corsHeaders(origin) };
    const baseUrl = config().baseUrl;
    let keyed: { key: ResolvedKey; decision: LimitDecision } | null = null;
    let status = 500;
    try {
      if (request.method === "OPTIONS" && origin && originAllowed(origin) && request.headers.get("access-control-request-method")) {
        status = 204;
        return new Response(null, { status, headers: { "X-Request-Id": requestId, ...preflightHeaders(origin) } });
      }
      if (request.method !== "GET" && request.method !== "HEAD") {
        await admitAddressOnly(request.headers);
        throw new ApiError("method_not_allowed", {
          message: errorMessage("method_not_allowed", { method: request.method, allow: ALLOW }),
          headers: { Allow: ALLOW },
        });
      }
      keyed = await admit(request.headers);
      const url = new URL(request.url);
      const payload = await handler({
        requestId,
        key: keyed.key,
        decision: keyed.decision,
        query: url.searchParams,
        params: routeParams(await context.params),
      });
      status = 200;
      if ("raw" in payload) {
        const body = typeof payload.raw.body === "string" ? payload.raw.body : new Blob([payload.raw.body as Uint8Array<ArrayBuffer>]);
        return new Response(body, {
          status,
          headers: { ...base, ...rateLimitHeaders(keyed.decision), "Content-Type": payload.raw.contentType, ...payload.raw.headers },
        });
      }
      return json(request, envelope(payload), status, { ...base, ...rateLimitHeaders(keyed.decision) });
    } catch (caught) {
      let error: unknown = caught;
      if (caught instanceof KeyedRefusal) {
        keyed = { key: caught.key, decision: caught.decision };
        error = caught.error;
      }
      const apiError = toApiError(error, requestId, endpoint);
      status = apiError.status;
      const authed = keyed && apiError.code !== "invalid_api_key" && apiError.code !== "ip_rate_limited";
      const headers = {
        ...base,
        ...(authed && keyed ? rateLimitHeaders(keyed.decision) : {}),
        ...(apiError.code === "invalid_api_key" ? { "WWW-Authenticate": 'Bearer realm="api"' } : {}),
        ...apiError.headers,
      };
      return json(request, errorBody(apiError.code, apiError.message, requestId, baseUrl), status, headers);
    } finally {
      if (keyed) meter(keyed.key.id, endpoint, status);
    }
  };
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}

/** The pre-authentication throttle per client address; every request counts, keyed or not. */
export async function admitAddressOnly(headers: Headers): Promise<void> {
  const address = await throttle(limiterStore(), clientAddress(headers), Date.now(), { limit: config().IP_LIMIT_MINUTE });
  if (!address.allowed) throw addressRefusal(address);
}

function addressRefusal(address: ThrottleDecision): ApiError {
  return new ApiError("ip_rate_limited", {
    message: errorMessage("ip_rate_limited", { retryAfter: address.retryAfter ?? 1 }),
    headers: { "Retry-After": String(address.retryAfter ?? 1) },
  });
}
