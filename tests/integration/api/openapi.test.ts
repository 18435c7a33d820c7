import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "@/lib/api/errors";
import { baseUrl } from "../support/api";

// The served /openapi.json passes an OpenAPI 3.1 schema validator and Redocly's recommended lint
// rules with no problem at all, and carries what generated clients need.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is arbitrary JSON
let doc: any;
beforeAll(async () => {
  const res = await fetch(`${baseUrl()}/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});

/** Every (path, value) of a JSON value, paths as JSON pointers. */
function* walk(value: unknown, at = "#"): Generator<[string, unknown]> {
  yield [at, value];
  if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) yield* walk(v, `${at}/${k}`);
}

describe("/openapi.json", () => {
  it("validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("passes Redocly's recommended lint rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("servers is the configured PUBLIC_BASE_URL", () => {
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual([baseUrl()]);
  });

  it("every success response is a named component schema, and every object in it is a $ref to one", () => {
    for (const [path, item] of Object.entries<{
      get: { responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }> };
    }>(doc.paths)) {
      const ref = item.get.responses["200"]!.content["application/json"]!.schema.$ref;
      expect(ref, path).toMatch(/^#\/components\/schemas\/\w+Response$/);
    }
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      "IndexLatest",
      "IndexCatalogEntry",
      "IndexLevelPoint",
      "ReconstitutionEvent",
      "SeriesDefinition",
      "VolatilityTick",
      "VolatilityHistoryPoint",
      "KeyQuota",
      "DownloadsPointer",
      "Error",
      "Meta",
    ]) {
      expect(names).toContain(name);
    }
    // below the component level, no object schema with properties is written inline
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const [pointer, node] of walk(schema, `#/components/schemas/${name}`)) {
        if (pointer === `#/components/schemas/${name}` || node === null || typeof node !== "object") continue;
        const n = node as Record<string, unknown>;
        expect(n.type === "object" && n.properties !== undefined, `inline object at ${pointer}`).toBe(false);
      }
    }
    // every $ref resolves
    for (const [, node] of walk(doc)) {
      const ref = (node as { $ref?: unknown } | null)?.$ref;
      if (typeof ref === "string")
        expect(doc.components.schemas[ref.replace("#/components/schemas/", "")], ref).toBeDefined();
    }
  });

  it("error.code is an enum of exactly the spec's codes", () => {
    expect(doc.components.schemas.ErrorDetail.properties.code.enum).toEqual(ERROR_CODES);
    expect(doc.components.schemas.Error.properties.error.$ref).toBe("#/components/schemas/ErrorDetail");
  });

  it("counts and quotas have minimum 0", () => {
    const counts: string[] = [];
    for (const [pointer, node] of walk(doc.components.schemas)) {
      if (
        !/\/properties\/(count|n|\w+Count|remaining(Minute|Day)|limit(Minute|Day)|requestsPer(Minute|Day)|historyMaxDays)$/.test(
          pointer,
        )
      )
        continue;
      counts.push(pointer);
      const n = node as { type?: string; minimum?: number; const?: number };
      if (n.const !== undefined) expect(n.const, pointer).toBeGreaterThanOrEqual(0);
      else expect({ pointer, type: n.type, minimum: n.minimum }).toEqual({ pointer, type: "integer", minimum: 0 });
    }
    expect(counts.length).toBeGreaterThanOrEqual(15);
  });
});
