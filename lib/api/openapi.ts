import { z } from "zod";
import type { EndpointName } from "@/lib/api/endpoints";
import { ERRORS, ERROR_CODES, docsUrl, type ErrorCode } from "@/lib/api/errors";
import { indexHistoryQuery, queryParams, type ParamMeta, type QuerySchema, reconstitutionsQuery, volatilityHistoryQuery } from "@/lib/api/params";
import { COMPONENT_SCHEMAS, RESPONSE_NAMES, responses } from "@/lib/api/schemas";

// The OpenAPI 3.1 document, generated from the endpoint table's schemas and the error table.

const PATHS: Record<EndpointName, { path: string; summary: string; query?: QuerySchema; ticker?: boolean; errors: string[] }> = {
  service: { path: "/v1", summary: "Service index and quota report", errors: [] },
  indices: { path: "/v1/indices", summary: "Index catalog", errors: [] },
  indexLatest: { path: "/v1/indices/{ticker}/latest", summary: "Latest index level", ticker: true, errors: ["not_found"] },
  indexHistory: {
    path: "/v1/indices/{ticker}/history",
    summary: "Index level history",
    ticker: true,
    query: indexHistoryQuery,
    errors: ["not_found", "invalid_parameter", "invalid_interval", "invalid_window"],
  },
  indexReconstitutions: { path: "/v1/indices/{ticker}/reconstitutions", summary: "Reconstitution events", ticker: true, query: reconstitutionsQuery, errors: ["not_found", "invalid_parameter"] },
  volatility: { path: "/v1/volatility", summary: "Volatility catalog", errors: [] },
  volatilityLatest: { path: "/v1/volatility/{ticker}/latest", summary: "Latest volatility computation", ticker: true, errors: ["not_found"] },
  volatilityHistory: { path: "/v1/volatility/{ticker}/history", summary: "Volatility history", ticker: true, query: volatilityHistoryQuery, errors: ["not_found", "invalid_parameter"] },
  downloads: { path: "/v1/downloads", summary: "Snapshot bundle pointer", errors: [] },
};

/** An endpoint's parameter as the OpenAPI document and the docs' tables show it. */
export interface EndpointParameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Omit<ParamMeta, "description" | "invalid">;
  description: string;
  /** The error code of a bad value (docs only; not part of the OpenAPI parameter). */
  invalid: ErrorCode;
}

/** The path and query parameters of an endpoint: the ticker, then its query schema's as declared once (lib/api/params.ts). */
export function endpointParameters(name: EndpointName): EndpointParameter[] {
  const spec = PATHS[name];
  const out: EndpointParameter[] = [];
  if (spec.ticker) out.push({ name: "ticker", in: "path", required: true, schema: { type: "string" }, description: "case-insensitive", invalid: "not_found" });
  for (const { name: param, description, invalid, ...schema } of spec.query ? queryParams(spec.query) : []) {
    out.push({ name: param, in: "query", required: false, schema, description, invalid: invalid ?? "invalid_parameter" });
  }
  return out;
}

/** The endpoint's route template. */
export function endpointPath(name: EndpointName): string {
  return PATHS[name].path;
}

const COMMON_ERRORS = ["invalid_api_key", "ip_rate_limited", "rate_limited", "daily_limit_reached", "method_not_allowed", "internal_error", "unavailable"];

/** zod writes ±Number.MAX_SAFE_INTEGER as the bounds of every integer: noise in a document. */
function withoutSafeIntegerBounds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === "minimum" || k === "maximum") && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = withoutSafeIntegerBounds(v);
  }
  return out as T;
}

/**
 * components.schemas: every response object under its own name, each nested object a $ref to its
 * component, so generated clients get one real type per object.
 */
function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENT_SCHEMAS)) registry.add(schema, { id });
  for (const [name, id] of Object.entries(RESPONSE_NAMES)) registry.add(responses[name as EndpointName], { id });
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: "output", unrepresentable: "any" });
  return Object.fromEntries(
    Object.entries(withoutSafeIntegerBounds(schemas)).map(([id, schema]) => {
      // $schema and $id belong to standalone JSON Schema documents, not to OpenAPI components
      const rest: Record<string, unknown> = { ...schema };
      delete rest.$schema;
      delete rest.$id;
      return [id, rest];
    }),
  );
}

export function openApiDocument(baseUrl: string, links: { licenseUrl?: string; termsUrl?: string } = {}) {
  const rateHeaders = Object.fromEntries(
    ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day", "X-RateLimit-Reset", "X-RateLimit-Reset-Day"].map((h) => [h, { schema: { type: "integer" } }]),
  );
  const paths: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(PATHS) as Array<[EndpointName, (typeof PATHS)[EndpointName]]>) {
    const parameters = endpointParameters(name).map(({ name: param, in: where, required, schema, description }) => ({ name: param, in: where, required, schema, description }));
    const errorCodes = [...COMMON_ERRORS, ...spec.errors];
    const byStatus = new Map<number, string[]>();
    for (const code of errorCodes) {
      const status = ERRORS[code as keyof typeof ERRORS].status ?? 400;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const errorResponses = Object.fromEntries(
      [...byStatus].map(([status, codes]) => [
        String(status),
        {
          description: codes.map((c) => `${c}: ${ERRORS[c as keyof typeof ERRORS].when} (${docsUrl(c as keyof typeof ERRORS, baseUrl)})`).join("\n"),
          headers: { "X-Request-Id": { schema: { type: "string" } }, ...(status === 429 ? { "Retry-After": { schema: { type: "integer" } } } : {}) },
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      ]),
    );
    paths[spec.path] = {
      get: {
        operationId: name,
        summary: spec.summary,
        security: [{ bearer: [] }, { apiKeyHeader: [] }],
        parameters,
        responses: {
          "200": {
            description: "Success",
            headers: { "X-Request-Id": { schema: { type: "string" } }, ...rateHeaders },
            content: { "application/json": { schema: { $ref: `#/components/schemas/${RESPONSE_NAMES[name]}` } } },
          },
          ...errorResponses,
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Benchmark index and volatility data API",
      version: "v1",
      description: `Error codes: ${ERROR_CODES.join(", ")}. Docs: ${baseUrl}/docs`,
      termsOfService: links.termsUrl ?? `${baseUrl}/terms`,
      license: { name: "Data license", url: links.licenseUrl ?? `${baseUrl}/license` },
    },
    servers: [{ url: baseUrl, description: "The production host (PUBLIC_BASE_URL); there is no sandbox" }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" }, apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" } },
      schemas: componentSchemas(),
    },
    paths,
  };
}
