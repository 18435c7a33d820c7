import { describe, expect, it } from "vitest";
import { commonMeta, metaJson } from "@/lib/api/pipeline";

// metaJson is the success envelope's `meta` as JSON.stringify would write the merged object,
// byte for byte, whatever members a handler adds.
const at = "2026-11-24T19:30:00.123456Z";
const cases: Array<[string, Record<string, unknown> | undefined]> = [
  ["no handler members", undefined],
  ["an empty object", {}],
  ["a window", { effectiveStart: "2026-08-26T00:00:00Z", effectiveEnd: at, clamped: false, historyMaxDays: 90 }],
  ["only undefined members (left out)", { next: undefined }],
  ["undefined among others", { a: 1, b: undefined, c: "x" }],
  ["nested values and escapes", { note: 'quote " and \\ and \u2028', list: [1, null, { x: true }] }],
  ["a member replacing generatedAt (keeps its place, takes the new value)", { generatedAt: "other", clamped: true }],
  ["a member replacing license", { license: "https://example.test/l" }],
  ["integer-like names (JSON puts them first)", { "7": "seven", b: 2, "0": "zero" }],
];

describe("metaJson is JSON.stringify({ ...commonMeta(), ...extra }) byte for byte", () => {
  it.each(cases)("%s", (_name, extra) => {
    expect(metaJson(extra, at)).toBe(JSON.stringify({ ...commonMeta(at), ...extra }));
  });

  it("carries the common members and the given time", () => {
    const meta = JSON.parse(metaJson({ clamped: false }, at)) as Record<string, unknown>;
    expect(Object.keys(meta)).toEqual(["attribution", "license", "termsUrl", "generatedAt", "clamped"]);
    expect(meta.generatedAt).toBe(at);
  });
});
