import { z } from "zod";
import {
  COMMON_ERRORS,
  ENDPOINTS,
  ENDPOINT_NAMES,
  pathParams,
  type EndpointName,
  type EndpointSpec,
} from "@/lib/api/endpoint-table";
import { ERRORS, ERROR_CODES, docsUrl, type ErrorCode } from "@/lib/api/errors";
import { queryParams, type ParamMeta } from "@/lib/api/params";
import { RATE_LIMIT_HEADERS } from "@/lib/api/responses";
import { COMPONENT_SCHEMAS, RESPONSE_NAMES, responses } from "@/lib/openapi/schemas";

// The OpenAPI 3.1 document, generated from the endpoint table (lib/api/endpoint-table.ts), its
// query schemas, the response schemas and the error table.

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
  const spec: EndpointSpec = ENDPOINTS[name];
  const out: EndpointParameter[] = [];
  for (const param of pathParams(spec.path)) {
    out.push({
      name: param,
      in: "path",
      required: true,
      schema: { type: "string" },
      description: "case-insensitive",
      invalid: "not_found",
    });
  }
  for (const { name: param, description, invalid, ...schema } of spec.query ? queryParams(spec.query) : []) {
    out.push({
      name: param,
      in: "query",
      required: false,
      schema,
      description,
      invalid: invalid ?? "invalid_parameter",
    });
  }
  return out;
}

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
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: "output",
    unrepresentable: "any",
  });
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
    Object.values(RATE_LIMIT_HEADERS).map((h) => [h, { schema: { type: "integer" } }]),
  );
  const paths: Record<string, unknown> = {};
  for (const name of ENDPOINT_NAMES) {
    const spec: EndpointSpec = ENDPOINTS[name];
    const parameters = endpointParameters(name).map(({ name: param, in: where, required, schema, description }) => ({
      name: param,
      in: where,
      required,
      schema,
      description,
    }));
    const errorCodes: ErrorCode[] = [...COMMON_ERRORS, ...spec.errors];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodes) {
      const status = ERRORS[code].status ?? 400;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const errorResponses = Object.fromEntries(
      [...byStatus].map(([status, codes]) => [
        String(status),
        {
          description: codes.map((c) => `${c}: ${ERRORS[c].when} (${docsUrl(c, baseUrl)})`).join("\n"),
          headers: {
            "X-Request-Id": { schema: { type: "string" } },
            ...(status === 429 ? { "Retry-After": { schema: { type: "integer" } } } : {}),
          },
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
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
      schemas: componentSchemas(),
    },
    paths,
  };
}
