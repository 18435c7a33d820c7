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

type NamedStatus = Exclude<(typeof ERRORS)[ErrorCode]["status"], null>;

/** Whether to retry, by status; the type makes a status new to the error table a compile error here. */
const RETRY: Readonly<Record<NamedStatus, string>> & { other: string } = {
  401: "no: fix the key",
  404: "no: check the ticker against the catalogs",
  405: "no: use `GET`",
  422: "no: fix the query",
  429: "yes, after exactly `Retry-After` seconds",
  500: "yes, with exponential backoff",
  503: "yes, after `Retry-After` or with exponential backoff",
  other: "by status: retry 5xx with backoff, fix the request otherwise",
};

export const ERROR_STATUS_HEAD = ["Status", "Codes", "Retry?"];

/** The "Handling errors" table: the error table's codes grouped by status, ascending, the fallback last. */
export function errorStatusRows(): string[][] {
  const byStatus = new Map<number | null, ErrorCode[]>();
  for (const code of ERROR_CODES) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const statuses = [...byStatus.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
  return statuses.map((status) => [
    status === null ? "any other" : String(status),
    byStatus
      .get(status)!
      .map((c) => `\`${c}\``)
      .join(", "),
    status === null ? RETRY.other : RETRY[status as NamedStatus],
  ]);
}
