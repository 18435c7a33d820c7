import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { presentedKey } from "@/lib/api/pipeline";

const KEY = "svc_live_abcdefghijklmnopqrstuvwxyz012345";
const OTHER = "svc_live_zyxwvutsrqponmlkjihgfedcba543210";

describe("presentedKey", () => {
  it.each<[string, Record<string, string>, string]>([
    ["Bearer", { Authorization: `Bearer ${KEY}` }, KEY],
    ["bearer, any case", { Authorization: `bEaReR ${KEY}` }, KEY],
    ["Bearer with surrounding spaces", { Authorization: `  Bearer   ${KEY}  ` }, KEY],
    ["X-API-Key", { "X-API-Key": KEY }, KEY],
    ["X-API-Key with spaces", { "X-API-Key": `  ${KEY} ` }, KEY],
    ["the same key in both headers", { Authorization: `Bearer ${KEY}`, "X-API-Key": KEY }, KEY],
    ["an empty X-API-Key beside Bearer", { Authorization: `Bearer ${KEY}`, "X-API-Key": "" }, KEY],
  ])("%s", (_label, headers, expected) => {
    expect(presentedKey(new Headers(headers))).toBe(expected);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ["no header", {}, /Missing or invalid API key/],
    ["empty X-API-Key", { "X-API-Key": "  " }, /Missing or invalid API key/],
    ["Basic", { Authorization: "Basic dXNlcjpwYXNz" }, /must be 'Bearer <API_KEY>'/],
    ["Bearer without a key", { Authorization: "Bearer" }, /must be 'Bearer <API_KEY>'/],
    ["Bearer with two tokens", { Authorization: `Bearer ${KEY} ${OTHER}` }, /must be 'Bearer <API_KEY>'/],
    ["the key without a scheme", { Authorization: KEY }, /must be 'Bearer <API_KEY>'/],
    ["Bearer: with a colon", { Authorization: `Bearer: ${KEY}` }, /must be 'Bearer <API_KEY>'/],
    [
      "a malformed Bearer beside a good X-API-Key",
      { Authorization: "Token abc", "X-API-Key": KEY },
      /must be 'Bearer <API_KEY>'/,
    ],
    ["two different keys", { Authorization: `Bearer ${KEY}`, "X-API-Key": OTHER }, /Two different keys/],
  ])("%s is invalid_api_key", (_label, headers, message) => {
    let caught: unknown;
    try {
      presentedKey(new Headers(headers));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe("invalid_api_key");
    expect((caught as ApiError).message).toMatch(message);
  });
});
