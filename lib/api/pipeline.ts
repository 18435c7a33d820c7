import "server-only";
import { ApiError, errorMessage } from "@/lib/api/errors";
import { clientAddress } from "@/lib/api/client-address";
import { preflightHeaders } from "@/lib/api/cors";
import { keyLimits } from "@/lib/ratelimit/limiter";
import { fromWebRequest, toResponse, type ApiRequest, type ApiResult, type RequestHeaders } from "@/lib/api/result";
import { envelopeChunks } from "@/lib/api/json-body";
import { addRateLimitHeaders, JSON_TYPE, KeyedRefusal, rateLimitHeaders, shell, type Keyed, type ShellContext, type Surface } from "@/lib/api/shell";
import { andThen, type Awaitable } from "@/lib/plumbing/awaitable";
import { config, type Config } from "@/lib/config";
import type { ResolvedKey } from "@/lib/keys/key-cache";
import { hashKey, looksLikeKey } from "@/lib/keys/key-format";
import { verifyKey } from "@/lib/keys/verify-key";
import { throttle, throttleThenConsume, type LimitDecision, type ThrottleDecision } from "@/lib/ratelimit";
import { iso6Now } from "@/lib/time-format";
import type { ReadContext } from "@/lib/data/read-cache";
import { root } from "@/lib/root";

export { KeyedRefusal, rateLimitHeaders, toApiError } from "@/lib/api/shell";

export interface KeyedContext {
  requestId: string;
  /** The read models' database and cache (lib/root.ts). */
  read: ReadContext;
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

/** A handler answers at once when its read model is loaded (the read models' `peek…`), else with a promise. */
export type Handler = (ctx: KeyedContext) => Awaitable<Payload>;
export type RawHandler = (ctx: KeyedContext) => Awaitable<Payload | RawPayload>;

const ALLOW = "GET";

export function commonMeta(generatedAt = iso6Now()): Record<string, unknown> {
  const c = config();
  return { attribution: c.ATTRIBUTION, license: c.licenseUrl, termsUrl: c.termsUrl, generatedAt };
}

/** The success body: the handler's `data`, and the common `meta` with the handler's members added. */
export function envelope(payload: Payload): { data: unknown; meta: Record<string, unknown> } {
  return { data: payload.data, meta: { ...commonMeta(), ...payload.meta } };
}

/** The common members' JSON up to generatedAt's value (`{"attribution":…,"generatedAt":`) and their names, per configuration. */
let metaHead: { config: Config; text: string; names: ReadonlySet<string> } | null = null;

function metaHeadOf(c: Config): { text: string; names: ReadonlySet<string> } {
  if (metaHead?.config !== c) {
    const common = commonMeta("");
    metaHead = { config: c, text: JSON.stringify(common).slice(0, -'""}'.length), names: new Set(Object.keys(common)) };
  }
  return metaHead;
}

/**
 * `JSON.stringify(envelope(payload).meta)` for `extra` = `payload.meta`, byte for byte: the
 * common members' text is built once per configuration instead of serialized for every response.
 * A handler member that would take a common member's place, or an integer-like name (which JSON
 * puts first), takes the plain way.
 */
export function metaJson(extra: Record<string, unknown> | undefined, generatedAt = iso6Now()): string {
  const head = metaHeadOf(config());
  if (extra) for (const k in extra) if (head.names.has(k) || /^\d+$/.test(k)) return JSON.stringify({ ...commonMeta(generatedAt), ...extra });
  const rest = extra === undefined ? "{}" : JSON.stringify(extra);
  return `${head.text}${JSON.stringify(generatedAt)}${rest === "{}" ? "}" : `,${rest.slice(1)}`}`;
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
export function admit(headers: RequestHeaders): Awaitable<Keyed> {
  const { keys, limiter, clock } = root();
  const hinted = knownKey(headers);
  if (!hinted) return admitUnknown(headers);
  const epoch = keys.readEpoch();
  epoch?.catch(() => undefined); // awaited below; a refusal must not leave it unhandled
  const both = throttleThenConsume(limiter.store(), clientAddress(headers), hinted.key.id, keyLimits(hinted.key, config()), clock.now(), {
    limit: config().IP_LIMIT_MINUTE,
  });
  return andThen(both, ({ address, key: windows }) => {
    if (!address.allowed || !windows) throw addressRefusal(address);
    // One instance without Redis has no shared epoch: a revocation here cleared this cache
    // directly, so the hint is the answer and the request is decided now, without a promise.
    if (!epoch) return { key: hinted.key, decision: admitted(hinted.key, windows) };
    // A key's id and limits never change once minted (rotation mints a new key), so the windows
    // spent under the hint are the resolved key's.
    return authenticate(headers, epoch.then(keys.applyEpoch), hinted).then((key) => ({ key, decision: admitted(key, windows) }));
  });
}

/** A key this instance has not resolved (or none): the address is throttled before the database is asked. */
async function admitUnknown(headers: RequestHeaders): Promise<Keyed> {
  const synced = root().keys.syncEpoch();
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
function knownKey(headers: RequestHeaders): KnownKey | null {
  let presented: string;
  try {
    presented = presentedKey(headers);
  } catch {
    return null;
  }
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const key = root().keys.peek(hash);
  return key ? { presented, hash, key } : null;
}

/**
 * The presented key, resolved; spends nothing (MCP checks it on every message, spends per tool
 * call). `synced` is the revocation-epoch read already made for this request; `known` the key
 * as already read from the headers and hashed.
 */
export async function authenticate(headers: RequestHeaders, synced?: Promise<void>, known?: { presented: string; hash: string }): Promise<ResolvedKey> {
  const presented = known?.presented ?? presentedKey(headers);
  const key = await verifyKey(root(), presented, synced, known?.hash);
  if (!key) {
    throw new ApiError("invalid_api_key", { message: "This API key is not valid: it was revoked, rotated or never existed." });
  }
  return key;
}

/** Spends one request from both of the key's windows; a refusal is a KeyedRefusal. */
export async function spendWindows(key: ResolvedKey): Promise<LimitDecision> {
  const { limiter, clock } = root();
  return admitted(key, await limiter.store().consume(key.id, keyLimits(key, config()), clock.now()));
}

/** The decision when it admitted; a refusal becomes a KeyedRefusal (rate_limited or daily_limit_reached). */
function admitted(key: ResolvedKey, decision: LimitDecision): LimitDecision {
  root().metrics.rateLimit.inc(decision.allowed ? { window: "key", decision: "allowed" } : { window: decision.limited === "day" ? "day" : "minute", decision: "refused" });
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

/** The pre-authentication throttle per client address; every request counts, keyed or not. */
export async function admitAddressOnly(headers: RequestHeaders): Promise<void> {
  const { limiter, clock } = root();
  const address = await throttle(limiter.store(), clientAddress(headers), clock.now(), { limit: config().IP_LIMIT_MINUTE });
  if (!address.allowed) throw addressRefusal(address);
}

function addressRefusal(address: ThrottleDecision): ApiError {
  root().metrics.rateLimit.inc({ window: "address", decision: "refused" });
  return new ApiError("ip_rate_limited", {
    message: errorMessage("ip_rate_limited", { retryAfter: address.retryAfter ?? 1 }),
    headers: { "Retry-After": String(address.retryAfter ?? 1) },
  });
}

/** Surfaces by label: built once per endpoint, not per request. */
const surfaces = new Map<string, Surface>();

/** The /v1 surface: GET (and HEAD), the API's preflight, usage metered under `label`. */
function v1Surface(label: string, methods: readonly string[] | null): Surface {
  let surface = surfaces.get(label);
  if (!surface) {
    surface = {
      label,
      methods,
      allow: ALLOW,
      preflight: preflightHeaders,
      throttle: admitAddressOnly,
      done: (keyed, status, answer) => {
        const { meter, clock } = root();
        meter.record(keyed.key.id, label, status, clock.now(), answer);
      },
    };
    surfaces.set(label, surface);
  }
  return surface;
}

const V1_METHODS = ["GET", "HEAD"] as const;

/**
 * A /v1 endpoint's answer, whatever the transport: X-Request-Id -> CORS -> method (address
 * throttle first) -> address throttle, key and key windows -> handler (which validates its
 * parameters) -> envelope, headers and metering.
 */
export function answerEndpoint(endpoint: string, handler: RawHandler, request: ApiRequest): Awaitable<ApiResult> {
  return shell(request, v1Surface(endpoint, V1_METHODS), (ctx) =>
    andThen(admit(request.headers), (keyed) => {
      ctx.keyed = keyed;
      const payload = handler({ requestId: ctx.requestId, read: root().read, key: keyed.key, decision: keyed.decision, query: request.query, params: request.params });
      return andThen(payload, (payload) => {
        if ("raw" in payload) {
          const headers = { ...ctx.base, ...rateLimitHeaders(keyed.decision, root().clock.now()) };
          return { status: 200, headers: { ...headers, "Content-Type": payload.raw.contentType, ...payload.raw.headers }, body: rawBody(payload.raw.body) };
        }
        // The headers in their final order, built once: Content-Type, the base, the key's limits.
        const headers: Record<string, string> = { "Content-Type": JSON_TYPE };
        Object.assign(headers, ctx.base);
        addRateLimitHeaders(headers, keyed.decision, root().clock.now());
        return { status: 200, headers, body: envelopeChunks(payload.data, metaJson(payload.meta)) };
      });
    }),
  );
}

function rawBody(body: Uint8Array | string): string | Uint8Array[] {
  return typeof body === "string" ? body : [body];
}

/** The label unknown /v1 paths are metered under when a key was presented. */
export const UNKNOWN_ENDPOINT = "/v1/*";

/**
 * A path under /v1 that is no endpoint: 404 in the spec's shape, for any method. The request
 * counts toward the address throttle like every other; when it presents a key, the key is
 * resolved and charged as for an endpoint, and the answer carries its rate-limit headers.
 */
export function answerUnknown(request: ApiRequest): Awaitable<ApiResult> {
  return shell(request, v1Surface(UNKNOWN_ENDPOINT, null), async (ctx) => {
    if (request.headers.has("authorization") || request.headers.has("x-api-key")) ctx.keyed = await admit(request.headers);
    else await admitAddressOnly(request.headers);
    throw new ApiError("not_found", { message: "No such endpoint. GET /v1 lists the endpoints." });
  });
}

function routeParams(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((raw ?? {}) as Record<string, unknown>)) out[k] = Array.isArray(v) ? v.join("/") : String(v);
  return out;
}

type WebHandler = (request: Request, context: { params?: Promise<unknown> }) => Promise<Response>;
type RouteExports = Record<"GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", WebHandler>;

function everyMethod(run: WebHandler): RouteExports {
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}

/** The web adapter of an endpoint: the exports of its app/v1 route file. */
export function apiRoute(endpoint: string, handler: RawHandler): RouteExports {
  return everyMethod(async (request, context) =>
    toResponse(await answerEndpoint(endpoint, handler, fromWebRequest(request, routeParams(await context.params)))),
  );
}

/** The web adapter of unknown /v1 paths (app/v1/[...rest]). */
export function unknownRoute(): RouteExports {
  return everyMethod(async (request) => toResponse(await answerUnknown(fromWebRequest(request))));
}

export type { ShellContext };
