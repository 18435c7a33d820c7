/**
 * The one error table. Error responses, the OpenAPI document and the /docs/errors page are all
 * generated from ERRORS, so code, status, wording and anchors cannot drift apart.
 */
import { hasErrorKind } from "@/lib/plumbing/error-kind";
import { DEFAULT_INTERVAL, INTERVALS, INTERVALS_TEXT } from "@/lib/data/window";

export interface ErrorSpec {
  /** HTTP status; null for the fallback `error`, which carries whatever status it is given. */
  status: number | null;
  /** Heading on the docs page. */
  title: string;
  /** Default `error.message`: human text, may be reworded (clients match on the code). */
  message: string;
  /** Detailed message with `{name}` placeholders, filled by `errorMessage`. */
  template?: string;
  /** When the service answers with this code (the spec's condition). */
  when: string;
  /** What the client should do about it. */
  whatToDo: string;
  /** Seconds sent as `Retry-After` with this code unless the answer gives its own. */
  retryAfter?: number;
}

export const ERRORS = {
  invalid_api_key: {
    status: 401,
    title: "Invalid API key",
    message: "Missing or invalid API key. Send it as 'Authorization: Bearer <API_KEY>' or 'X-API-Key: <API_KEY>'.",
    when: "No key was sent, or the key was revoked, rotated or never existed.",
    whatToDo:
      "Send a current key in one of the two headers. Keys are shown once at creation: mint or rotate one in the portal if it is lost.",
  },
  ip_rate_limited: {
    status: 429,
    title: "Too many requests from this address",
    message: "Too many requests from this address. Retry after the number of seconds in Retry-After.",
    template: "Too many requests from this address. Retry in {retryAfter} seconds.",
    when: "Too many requests from one address before key resolution (valid keyed traffic counts toward it).",
    whatToDo: "Wait the number of seconds in Retry-After, then slow down.",
  },
  rate_limited: {
    status: 429,
    title: "Minute limit reached",
    message: "Per-minute request limit reached for this key. Retry after the number of seconds in Retry-After.",
    template: "Per-minute limit of {limit} requests reached for this key. Retry in {retryAfter} seconds.",
    when: "The key's minute window is spent.",
    whatToDo:
      "Wait the number of seconds in Retry-After (it agrees with X-RateLimit-Reset), then keep under X-RateLimit-Limit per minute.",
  },
  daily_limit_reached: {
    status: 429,
    title: "Daily limit reached",
    message: "Daily request limit reached for this key. Retry after the number of seconds in Retry-After.",
    template: "Daily limit of {limit} requests reached for this key. Retry in {retryAfter} seconds.",
    when: "The key's day window (the last 24 hours) is spent.",
    whatToDo:
      "Wait the number of seconds in Retry-After (it agrees with X-RateLimit-Reset-Day). Requests count for 24 hours after they were admitted.",
  },
  not_found: {
    status: 404,
    title: "Not found",
    message: "No index or volatility series with this ticker.",
    template: "No index or volatility series with ticker '{ticker}'.",
    when: "No index or volatility series for the ticker on this surface; unknown tickers, unlisted series and series with nothing published are indistinguishable.",
    whatToDo: "Check the ticker against GET /v1/indices or GET /v1/volatility.",
  },
  method_not_allowed: {
    status: 405,
    title: "Method not allowed",
    message: "This method is not allowed on this route. The Allow header names the accepted methods.",
    template: "Method {method} is not allowed on this route. Allowed: {allow}.",
    when: "The route exists but does not accept the method; the response's Allow header names the accepted methods.",
    whatToDo: "Use GET (every endpoint of this API is GET).",
  },
  invalid_parameter: {
    status: 422,
    title: "Invalid parameter",
    message: "A query parameter failed validation.",
    template: "Invalid query parameter '{name}': {reason}.",
    when: "A query parameter failed validation (an unparseable date, a limit outside its range); the message names the parameter.",
    whatToDo: "Fix the named parameter; the endpoint reference lists each parameter's rules.",
  },
  invalid_interval: {
    status: 422,
    title: "Invalid interval",
    message: `interval must be ${INTERVALS_TEXT}.`,
    template: `interval must be ${INTERVALS_TEXT}, got '{interval}'.`,
    when: `The interval parameter is not ${INTERVALS_TEXT}.`,
    whatToDo: `Send interval=${INTERVALS.join(" or interval=")}, or leave it out for ${DEFAULT_INTERVAL}.`,
  },
  invalid_window: {
    status: 422,
    title: "Invalid window",
    message: "start must be before end.",
    template: "start ({start}) must be before end ({end}).",
    when: "start is not before end; a future end is reported against the current time.",
    whatToDo: "Send a start earlier than end (both ISO 8601); the message quotes both parsed values.",
  },
  internal_error: {
    status: 500,
    title: "Internal error",
    message: "Something went wrong on our side. Retry with backoff; quote the requestId if it persists.",
    when: "A fault on the service side.",
    whatToDo: "Retry with exponential backoff. If it persists, report the requestId.",
  },
  unavailable: {
    status: 503,
    title: "Temporarily unavailable",
    message: "The service is temporarily not serving. Retry with backoff.",
    when: "The service is temporarily not serving (maintenance, overload or a dependency down).",
    whatToDo: "Retry with exponential backoff.",
    retryAfter: 5,
  },
  error: {
    status: null,
    title: "Other errors",
    message: "The request could not be served.",
    when: "Fallback for an HTTP status with no named code.",
    whatToDo: "Read the message and the HTTP status; the limits page describes what the API accepts.",
  },
} as const satisfies Readonly<Record<string, ErrorSpec>>;

export type ErrorCode = keyof typeof ERRORS;
/** Codes with a fixed status; `error` is the only one that takes any status. */
export type NamedErrorCode = Exclude<ErrorCode, "error">;

/** All codes, in table order (the docs page and OpenAPI list them in this order). */
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** Statuses that have a named code: the fallback `error` is for every other status. */
const NAMED_STATUSES = new Set<number>(
  Object.values(ERRORS).flatMap((spec: ErrorSpec) => (spec.status === null ? [] : [spec.status])),
);

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERRORS, value);
}

/** Placeholder names of a template string, e.g. "{a} and {b}" -> "a" | "b". */
type Placeholders<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
export type TemplatedCode = {
  [C in ErrorCode]: (typeof ERRORS)[C] extends { template: string } ? C : never;
}[ErrorCode];
export type TemplateParams<C extends TemplatedCode> = Record<
  Placeholders<(typeof ERRORS)[C]["template"]>,
  string | number
>;

/** Fills a code's template; every placeholder must be given (checked by the type). */
export function errorMessage<C extends TemplatedCode>(code: C, params: TemplateParams<C>): string {
  let text: string = ERRORS[code].template;
  for (const [name, value] of Object.entries<string | number>(params)) {
    text = text.replaceAll(`{${name}}`, String(value));
  }
  return text;
}

/** Anchor of a code on /docs/errors. Codes are already anchor-safe, so this is the identity on them. */
export function errorAnchor(code: ErrorCode): string {
  return code.toLowerCase().replaceAll(/[^a-z0-9_-]/g, "-");
}

/** Deep link for a code: its section on the errors page; the fallback points at the limits page. */
export function docsUrl(code: ErrorCode, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return code === "error" ? `${base}/docs/limits` : `${base}/docs/errors#${errorAnchor(code)}`;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; docsUrl: string; requestId: string };
}

/** The single failure shape: `{ error: { code, message, docsUrl, requestId } }`, nothing else. */
export function errorBody(code: ErrorCode, message: string, requestId: string, baseUrl: string): ErrorBody {
  return { error: { code, message, docsUrl: docsUrl(code, baseUrl), requestId } };
}

export interface ApiErrorOptions {
  /** Overrides the table's default message (use `errorMessage` for templated detail). */
  message?: string;
  /** Extra response headers, e.g. Allow on 405 or Retry-After on 429. */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

/** Thrown by code in lib/api; the pipeline renders it with `errorBody` and its status and headers. */
export class ApiError extends Error {
  readonly kind = "ApiError" as const;
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: NamedErrorCode, options?: ApiErrorOptions);
  constructor(code: "error", options: ApiErrorOptions & { status: number });
  constructor(code: ErrorCode, options: ApiErrorOptions & { status?: number } = {}) {
    super(options.message ?? ERRORS[code].message, { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    const status = ERRORS[code].status ?? options.status;
    if (status === undefined || !Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`ApiError(${code}): needs an HTTP error status, got ${String(status)}`);
    }
    if (code === "error" && NAMED_STATUSES.has(status)) {
      throw new RangeError(`ApiError(error): status ${status} has a named code; use it`);
    }
    this.status = status;
    const spec: ErrorSpec = ERRORS[code];
    this.headers =
      spec.retryAfter === undefined
        ? { ...options.headers }
        : { "Retry-After": String(spec.retryAfter), ...options.headers };
  }
}

export function isApiError(value: unknown): value is ApiError {
  return hasErrorKind(value, "ApiError");
}
