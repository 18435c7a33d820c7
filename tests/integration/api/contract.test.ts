import { beforeAll, describe, expect, it } from "vitest";
import { errorResponse, responses } from "@/lib/openapi/schemas";
import { baseUrl, call, newKey } from "../support/api";

let key = "";
let index = "";
let series = "";

beforeAll(async () => {
  key = (await newKey()).key;
  index = (await call("/v1/indices", { key })).body.data.indices[0].ticker;
  series = (await call("/v1/volatility", { key })).body.data.series[0].ticker;
});

describe("live responses validate against the schemas the OpenAPI document is generated from", () => {
  const cases: Array<[keyof typeof responses, () => string]> = [
    ["service", () => "/v1"],
    ["indices", () => "/v1/indices"],
    ["indexLatest", () => `/v1/indices/${index}/latest`],
    ["indexHistory", () => `/v1/indices/${index}/history?interval=1h`],
    ["indexReconstitutions", () => `/v1/indices/${index}/reconstitutions?limit=50`],
    ["volatility", () => "/v1/volatility"],
    ["volatilityLatest", () => `/v1/volatility/${series}/latest`],
    ["volatilityHistory", () => `/v1/volatility/${series}/history?limit=5000&includeGated=true`],
    ["downloads", () => "/v1/downloads"],
  ];
  it.each(cases)("%s", async (name, path) => {
    const res = await call(path(), { key });
    expect(res.status).toBe(200);
    const parsed = responses[name].safeParse(res.body);
    expect(parsed.error?.issues.slice(0, 3) ?? []).toEqual([]);
  });

  it("errors validate against the Error schema", async () => {
    for (const path of ["/v1", `/v1/indices/NOPE/latest`, `/v1/indices/${index}/history?interval=5m`]) {
      const res = await call(path, { key: path === "/v1" ? undefined : key });
      expect(errorResponse.safeParse(res.body).success).toBe(true);
    }
  });
});

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document of every endpoint, parameter and error", async () => {
    const res = await fetch(`${baseUrl()}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/v1",
        "/v1/downloads",
        "/v1/indices",
        "/v1/indices/{ticker}/history",
        "/v1/indices/{ticker}/latest",
        "/v1/indices/{ticker}/reconstitutions",
        "/v1/volatility",
        "/v1/volatility/{ticker}/history",
        "/v1/volatility/{ticker}/latest",
      ].sort(),
    );
    const history = doc.paths["/v1/indices/{ticker}/history"].get;
    expect(history.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "end",
      "interval",
      "start",
      "ticker",
    ]);
    expect(Object.keys(history.responses).sort()).toEqual(["200", "401", "404", "405", "422", "429", "500", "503"]);
    const limit = doc.paths["/v1/volatility/{ticker}/history"].get.parameters.find(
      (p: { name: string }) => p.name === "limit",
    );
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 5000, default: 500 });
    expect(history.responses["422"].description).toContain("invalid_window");
  });
});
