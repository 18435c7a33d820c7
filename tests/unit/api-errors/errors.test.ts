import { describe, expect, test } from "vitest";
import {
  ApiError,
  ERROR_CODES,
  ERRORS,
  docsUrl,
  errorAnchor,
  errorBody,
  errorMessage,
  isApiError,
  isErrorCode,
} from "@/lib/api/errors";

const BASE = "https://api.example.test";

describe("error table", () => {
  test("holds exactly the spec's twelve codes", () => {
    expect(ERROR_CODES).toEqual([
      "invalid_api_key",
      "ip_rate_limited",
      "rate_limited",
      "daily_limit_reached",
      "not_found",
      "method_not_allowed",
      "invalid_parameter",
      "invalid_interval",
      "invalid_window",
      "internal_error",
      "unavailable",
      "error",
    ]);
  });

  test.each([
    ["invalid_api_key", 401],
    ["ip_rate_limited", 429],
    ["rate_limited", 429],
    ["daily_limit_reached", 429],
    ["not_found", 404],
    ["method_not_allowed", 405],
    ["invalid_parameter", 422],
    ["invalid_interval", 422],
    ["invalid_window", 422],
    ["internal_error", 500],
    ["unavailable", 503],
    ["error", null],
  ] as const)("%s has status %s", (code, status) => {
    expect(ERRORS[code].status).toBe(status);
  });

  test.each(ERROR_CODES)("%s has a title, message, condition and advice", (code) => {
    const spec = ERRORS[code];
    for (const text of [spec.title, spec.message, spec.when, spec.whatToDo]) expect(text.length).toBeGreaterThan(5);
    expect(spec.message).not.toMatch(/\{\w+\}/);
  });

  test.each(ERROR_CODES)("anchor of %s is the code itself (docs headings use it)", (code) => {
    expect(errorAnchor(code)).toBe(code);
    expect(errorAnchor(code)).toMatch(/^[a-z0-9_-]+$/);
  });

  test("isErrorCode accepts table codes only", () => {
    expect(isErrorCode("rate_limited")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
    expect(isErrorCode("forbidden")).toBe(false);
  });
});

describe("docsUrl", () => {
  test.each(ERROR_CODES.filter((c) => c !== "error"))("%s deep-links to its section of /docs/errors", (code) => {
    expect(docsUrl(code, BASE)).toBe(`${BASE}/docs/errors#${code}`);
  });

  test("the fallback code points at the limits page", () => {
    expect(docsUrl("error", BASE)).toBe(`${BASE}/docs/limits`);
  });

  test("a trailing slash on the base does not double", () => {
    expect(docsUrl("not_found", `${BASE}/`)).toBe(`${BASE}/docs/errors#not_found`);
  });
});

describe("errorBody", () => {
  test("is the single failure shape: error.code, message, docsUrl, requestId and nothing else", () => {
    const body = errorBody("rate_limited", "slow down", "req_123", BASE);
    expect(body).toEqual({
      error: {
        code: "rate_limited",
        message: "slow down",
        docsUrl: `${BASE}/docs/errors#rate_limited`,
        requestId: "req_123",
      },
    });
    expect(Object.keys(body)).toEqual(["error"]);
  });
});

describe("errorMessage", () => {
  test.each([
    [
      "invalid_parameter",
      { name: "limit", reason: "must be an integer from 1 to 50" },
      "Invalid query parameter 'limit': must be an integer from 1 to 50.",
    ],
    ["invalid_interval", { interval: "5m" }, "interval must be 1h or 1d, got '5m'."],
    [
      "invalid_window",
      { start: "2025-01-02T00:00:00Z", end: "2025-01-01T00:00:00Z" },
      "start (2025-01-02T00:00:00Z) must be before end (2025-01-01T00:00:00Z).",
    ],
    ["method_not_allowed", { method: "POST", allow: "GET" }, "Method POST is not allowed on this route. Allowed: GET."],
    [
      "rate_limited",
      { limit: 60, retryAfter: 12 },
      "Per-minute limit of 60 requests reached for this key. Retry in 12 seconds.",
    ],
  ] as const)("%s fills its template", (code, params, expected) => {
    expect(errorMessage(code, params as never)).toBe(expected);
  });

  test("placeholders are typed", () => {
    // @ts-expect-error: invalid_window needs both start and end
    expect(errorMessage("invalid_window", { start: "a" })).toContain("{end}");
  });
});

describe("ApiError", () => {
  test("takes status and default message from the table", () => {
    const e = new ApiError("not_found");
    expect(e).toBeInstanceOf(Error);
    expect(isApiError(e)).toBe(true);
    expect([e.code, e.status, e.message]).toEqual(["not_found", 404, ERRORS.not_found.message]);
    expect(e.headers).toEqual({});
  });

  test("carries a message and extra headers", () => {
    const e = new ApiError("method_not_allowed", {
      message: errorMessage("method_not_allowed", { method: "PUT", allow: "GET" }),
      headers: { Allow: "GET" },
    });
    expect(e.status).toBe(405);
    expect(e.headers).toEqual({ Allow: "GET" });
    expect(e.message).toContain("PUT");
  });

  test("the fallback code takes the status it is given", () => {
    expect(new ApiError("error", { status: 400 }).status).toBe(400);
    expect(new ApiError("error", { status: 413 }).status).toBe(413);
  });

  test("the fallback refuses statuses that have a named code, and non-error statuses", () => {
    expect(() => new ApiError("error", { status: 404 })).toThrow(RangeError);
    expect(() => new ApiError("error", { status: 200 })).toThrow(RangeError);
  });

  test("a named code ignores any status smuggled in", () => {
    const e = new ApiError("unavailable", { status: 418 } as { message?: string });
    expect(e.status).toBe(503);
  });

  test("isApiError rejects other errors", () => {
    expect(isApiError(new Error("x"))).toBe(false);
    expect(isApiError({ code: "not_found", status: 404 })).toBe(false);
  });
});
