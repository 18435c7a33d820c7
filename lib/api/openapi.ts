import { z } from "zod";
import type { EndpointName } from "@/lib/api/endpoints";
import { ERRORS, ERROR_CODES, docsUrl } from "@/lib/api/errors";
import { indexHistoryQuery, queryParams, type QuerySchema, reconstitutionsQuery, volatilityHistoryQuery } from "@/lib/api/params";
import { errorResponse, responses } from "@/lib/api/schemas";

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

const COMMON_ERRORS = ["invalid_api_key", "ip_rate_limited", "rate_limited", "daily_limit_reached", "method_not_allowed", "internal_error", "unavailable"];

export function openApiDocument(baseUrl: string) {
  const rateHeaders = Object.fromEntries(
    ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day", "X-RateLimit-Reset", "X-RateLimit-Reset-Day"].map((h) => [h, { schema: { type: "integer" } }]),
  );
  const paths: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(PATHS) as Array<[EndpointName, (typeof PATHS)[EndpointName]]>) {
    const parameters: unknown[] = [];
    if (spec.ticker) parameters.push({ name: "ticker", in: "path", required: true, schema: { type: "string" }, description: "case-insensitive" });
    // Every query parameter as declared once on its schema (lib/api/params.ts).
    for (const { name: param, description, ...schema } of spec.query ? queryParams(spec.query) : []) {
      parameters.push({ name: param, in: "query", required: false, schema, description });
    }
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
            content: { "application/json": { schema: z.toJSONSchema(responses[name], { io: "output", unrepresentable: "any" }) } },
          },
          ...errorResponses,
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Benchmark index and volatility data API", version: "v1", description: `Error codes: ${ERROR_CODES.join(", ")}. Docs: ${baseUrl}/docs` },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" }, apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" } },
      schemas: { Error: z.toJSONSchema(errorResponse) },
    },
    paths,
  };
}
