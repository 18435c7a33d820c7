import {
  ERRORS,
  ERROR_CODES,
  docsUrl,
  errorAnchor,
  errorBody,
  errorMessage,
  type ErrorBody,
  type ErrorCode,
  type TemplateParams,
  type TemplatedCode,
} from "@/lib/api/errors";
import { EXAMPLE_BASE_URL, EXAMPLE_REQUEST_ID } from "./examples";

/**
 * The /docs/errors page is generated from the error table in lib/api/errors.ts: one section per
 * code, anchored by `errorAnchor(code)`, so a new code or a reworded remedy shows up here by itself.
 */

export interface ErrorSection {
  code: ErrorCode;
  /** Element id of the section: the fragment of the code's `error.docsUrl`. */
  anchor: string;
  title: string;
  status: number | null;
  statusLabel: string;
  when: string;
  whatToDo: string;
  /** Where `error.docsUrl` points for this code (relative to the base address). */
  docsPath: string;
  /** A realistic failure body, built by the same `errorBody` the API uses. */
  example: ErrorBody;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Sample values for every templated message; the type makes a new placeholder a compile error here. */
const SAMPLE_PARAMS: { [C in TemplatedCode]: TemplateParams<C> } = {
  ip_rate_limited: { retryAfter: 12 },
  rate_limited: { limit: 60, retryAfter: 17 },
  daily_limit_reached: { limit: 2000, retryAfter: 5123 },
  not_found: { ticker: "NOPE" },
  method_not_allowed: { method: "POST", allow: "GET" },
  invalid_parameter: { name: "limit", reason: "must be an integer from 1 to 50" },
  invalid_interval: { interval: "5m" },
  invalid_window: { start: "2026-11-20T00:00:00Z", end: "2026-11-19T00:00:00Z" },
};

function isTemplated(code: ErrorCode): code is TemplatedCode {
  return Object.hasOwn(SAMPLE_PARAMS, code);
}

function filled<C extends TemplatedCode>(code: C): string {
  return errorMessage(code, SAMPLE_PARAMS[code]);
}

/** The detailed message a client would see for this code (the default message when untemplated). */
function sampleMessage(code: ErrorCode): string {
  return isTemplated(code) ? filled(code) : ERRORS[code].message;
}

export function statusLabel(status: number | null): string {
  if (status === null) return "any status without a named code";
  const text = STATUS_TEXT[status];
  return text === undefined ? String(status) : `${status} ${text}`;
}

export function errorSections(): ErrorSection[] {
  return ERROR_CODES.map((code) => {
    const spec = ERRORS[code];
    const url = docsUrl(code, EXAMPLE_BASE_URL);
    return {
      code,
      anchor: errorAnchor(code),
      title: spec.title,
      status: spec.status,
      statusLabel: statusLabel(spec.status),
      when: spec.when,
      whatToDo: spec.whatToDo,
      docsPath: url.slice(EXAMPLE_BASE_URL.length),
      example: errorBody(code, sampleMessage(code), EXAMPLE_REQUEST_ID, EXAMPLE_BASE_URL),
    };
  });
}
