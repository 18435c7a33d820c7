/** Every `error.code` the API returns (the OpenAPI document's enum). */
export type ErrorCode =
  | "invalid_api_key"
  | "ip_rate_limited"
  | "rate_limited"
  | "daily_limit_reached"
  | "not_found"
  | "method_not_allowed"
  | "invalid_parameter"
  | "invalid_interval"
  | "invalid_window"
  | "internal_error"
  | "unavailable"
  | "error";

export interface ErrorDetails {
  code: ErrorCode;
  status: number;
  message: string;
  docsUrl: string | null;
  /** The response's X-Request-Id: quote it when reporting a problem. */
  requestId: string | null;
  /** Seconds from Retry-After (429, and 503 when sent). */
  retryAfter: number | null;
}

/** A failure answered by the API. Match on the class or on `code`, never on the message. */
export class PmbError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly docsUrl: string | null;
  readonly requestId: string | null;
  readonly retryAfter: number | null;

  constructor(details: ErrorDetails) {
    super(
      `${details.code} (${details.status}): ${details.message}${details.requestId ? ` [request ${details.requestId}]` : ""}`,
    );
    this.name = new.target.name;
    this.code = details.code;
    this.status = details.status;
    this.docsUrl = details.docsUrl;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
  }
}

export class InvalidApiKeyError extends PmbError {}
/** Any 429: wait `retryAfter` seconds. */
export class RateLimitError extends PmbError {}
export class IpRateLimitedError extends RateLimitError {}
export class RateLimitedError extends RateLimitError {}
export class DailyLimitReachedError extends RateLimitError {}
export class NotFoundError extends PmbError {}
export class MethodNotAllowedError extends PmbError {}
/** Any 422: the request's parameters are wrong. */
export class ValidationError extends PmbError {}
export class InvalidParameterError extends ValidationError {}
export class InvalidIntervalError extends ValidationError {}
export class InvalidWindowError extends ValidationError {}
/** 500 or 503: the client has already retried. */
export class ServerError extends PmbError {}
export class InternalError extends ServerError {}
export class UnavailableError extends ServerError {}

const BY_CODE: Record<ErrorCode, new (details: ErrorDetails) => PmbError> = {
  invalid_api_key: InvalidApiKeyError,
  ip_rate_limited: IpRateLimitedError,
  rate_limited: RateLimitedError,
  daily_limit_reached: DailyLimitReachedError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  invalid_parameter: InvalidParameterError,
  invalid_interval: InvalidIntervalError,
  invalid_window: InvalidWindowError,
  internal_error: InternalError,
  unavailable: UnavailableError,
  error: PmbError,
};

/** The typed error for a failure; an unknown code (a newer API) becomes a plain PmbError. */
export function errorFor(details: Omit<ErrorDetails, "code"> & { code: string }): PmbError {
  const known = Object.hasOwn(BY_CODE, details.code);
  const code = (known ? details.code : "error") as ErrorCode;
  return new BY_CODE[code]({ ...details, code });
}
