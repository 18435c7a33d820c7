import { describe, expect, it } from "vitest";
import { baseUrl, call, expectError, expectRateHeaders, newKey } from "../support/api";

describe("not_found", () => {
  it("an unknown ticker answers not_found with the common headers", async () => {
    const { key } = await newKey();
    for (const path of [
      "/v1/indices/NOPE/latest",
      "/v1/indices/NOPE/history",
      "/v1/indices/NOPE/reconstitutions",
      "/v1/volatility/NOPE/latest",
      "/v1/volatility/NOPE/history",
    ]) {
      const res = await call(path, { key });
      expectError(res, 404, "not_found");
      expectRateHeaders(res, true);
    }
  });

  it("a path under /v1 that is no endpoint answers JSON not_found", async () => {
    const res = await call("/v1/nothing/here");
    expectError(res, 404, "not_found");
  });
});

describe("bad input gets the spec's error, never a 500", () => {
  it.each<[string, number, string | null]>([
    [`/v1/indices/${"A".repeat(3000)}/latest`, 404, "not_found"],
    ["/v1/indices/%E0%A4%A/latest", 400, "error"],
    ["/v1/indices/%00/history", 404, "not_found"],
    [`/v1/indices/X/history?start=${"9".repeat(5000)}`, 422, "invalid_parameter"],
    ["/v1/indices/X/history?start=2026-02-31", 422, "invalid_parameter"],
    ["/v1/indices/X/history?interval=5m", 422, "invalid_interval"],
    ["/v1/indices/X/history?interval=", 422, "invalid_interval"],
    // a repeated parameter: the first value is used (docs: conventions), for every parameter
    ["/v1/indices/X/history?interval=1h&interval=5m", 404, "not_found"],
    ["/v1/indices/X/history?interval=5m&interval=1h", 422, "invalid_interval"],
    ["/v1/volatility/X/history?limit=3&limit=0", 404, "not_found"],
    ["/v1/volatility/X/history?limit=0&limit=3", 422, "invalid_parameter"],
    ["/v1/indices/X/history?start=2026-11-02&end=2026-11-01", 422, "invalid_window"],
    ["/v1/volatility/X/history?limit=1e3", 422, "invalid_parameter"],
    ["/v1/volatility/X/history?includeGated[]=x", 404, "not_found"],
    [`/v1?${"a=1&".repeat(2000)}`, 200, null],
  ])("%s answers %i %s", async (path, status, code) => {
    const { key } = await newKey();
    const res = await call(path, { key });
    if (code) expectError(res, status, code);
    else expect(Object.keys(res.body)).toEqual(["data", "meta"]);
    expect(res.status).toBe(status);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("every error links into the docs", () => {
  it("docsUrl is {base}/docs/errors#{code}", async () => {
    const res = await call("/v1");
    expect(res.body.error.docsUrl).toBe(`${baseUrl()}/docs/errors#invalid_api_key`);
  });
});

describe("CORS", () => {
  it("answers a preflight from the service's own origin", async () => {
    const res = await fetch(`${baseUrl()}/v1/indices`, {
      method: "OPTIONS",
      headers: {
        Origin: baseUrl(),
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(baseUrl());
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("does not answer a preflight from another origin", async () => {
    const res = await fetch(`${baseUrl()}/v1/indices`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the envelope", () => {
  it("carries attribution, license, termsUrl and generatedAt with microseconds and Z", async () => {
    const { key } = await newKey();
    const res = await call("/v1/downloads", { key });
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta"]);
    expect(res.body.meta.attribution).toEqual(expect.any(String));
    expect(res.body.meta.license).toMatch(/^https?:\/\//);
    expect(res.body.meta.termsUrl).toMatch(/^https?:\/\/.+\/terms$/);
    expect(res.body.meta.generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(res.body.data.latestManifestUrl).toMatch(/\/downloads\/manifest\.json$/);
  });
});
