import { describe, expect, it } from "vitest";
import { endpoints } from "@/lib/api/endpoints";
import { matchRoute, pathSegments, underV1 } from "@/lib/api/node-adapter";
import { canonicalPath } from "@/lib/server/front";

describe("canonicalPath", () => {
  it.each<[string, string | null]>([
    ["/", null],
    ["/v1", null],
    ["/v1/indices", null],
    ["/v1/indices/", "/v1/indices"],
    ["//v1/indices", "/v1/indices"],
    ["/v1/indices//latest", "/v1/indices/latest"],
    ["/v1///", "/v1"],
    ["/downloads/", "/downloads"],
    ["//", "/"],
    ["//evil.example/x", "/evil.example/x"],
  ])("%s -> %s", (path, expected) => {
    expect(canonicalPath(path)).toBe(expected);
  });
});

describe("pathSegments", () => {
  it.each<[string, string[] | null]>([
    ["/v1/indices", ["v1", "indices"]],
    ["/v1/indices/%50MB-X/latest", ["v1", "indices", "PMB-X", "latest"]],
    ["/v1/indices/./latest", ["v1", "indices", "latest"]],
    ["/v1/indices/../volatility", ["v1", "volatility"]],
    ["/v1/indices/a%2Fb/latest", ["v1", "indices", "a/b", "latest"]],
    ["/v1/indices/%E0%A4%A/latest", null],
    ["/v1/indices/PMX.A/latest", ["v1", "indices", "PMX.A", "latest"]],
    ["/v1/indices/.hidden/latest", ["v1", "indices", ".hidden", "latest"]],
    ["/v1/indices/..", ["v1"]],
    ["/", [""]],
    ["/v1/indices/", ["v1", "indices", ""]],
    ["//v1//indices", ["", "v1", "", "indices"]],
    ["/v1/indices/PMX-ELEC/latest", ["v1", "indices", "PMX-ELEC", "latest"]],
    ["v1/indices", ["indices"]],
    ["v1", []],
  ])("%s", (path, expected) => {
    expect(pathSegments(path)).toEqual(expected);
  });
});

describe("matchRoute: the endpoint table's templates", () => {
  it.each(Object.values(endpoints).map((e) => [e.path] as const))("%s", (template) => {
    const path = template.replace("{ticker}", "PMB-TEST");
    const match = matchRoute(pathSegments(path)!);
    expect(match?.endpoint.path).toBe(template);
    expect(match?.params).toEqual(template.includes("{ticker}") ? { ticker: "PMB-TEST" } : {});
  });

  it.each([
    "/v1/nothing",
    "/v1/indices/X",
    "/v1/indices/X/latest/more",
    "/v1/indices//latest",
    "/v1/volatility/X/levels",
    "/v2/indices",
  ])("%s is no endpoint", (path) => {
    expect(matchRoute(pathSegments(path)!)).toBeNull();
  });

  it.each<[string, boolean]>([
    ["/v1", true],
    ["/v1/indices", true],
    ["/v10", false],
    ["/v1x/indices", false],
    ["/docs/v1", false],
  ])("under /v1: %s", (path, expected) => {
    expect(underV1(path)).toBe(expected);
  });
});
