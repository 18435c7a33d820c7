import { ERRORS, type ErrorCode } from "@/lib/api/errors";
import { ENDPOINTS, type EndpointName } from "@/lib/api/endpoint-table";
import { endpointParameters, type EndpointParameter } from "@/lib/openapi/document";

/**
 * The docs' parameter tables, read from the one parameter table: the endpoint's path parameter
 * and its query schema's declarations (lib/api/params.ts), through the same helper the OpenAPI
 * document is built with (`endpointParameters`). No docs page writes a parameter row by hand.
 */
export const PARAMS_HEAD = ["Parameter", "In", "Type", "Default", "Rules"];

function typeOf(p: EndpointParameter): string {
  if (p.schema.format === "date-time") return "ISO 8601 date or timestamp";
  if (p.schema.type === "boolean") return "`true` or `false`";
  return p.schema.type;
}

function defaultOf(p: EndpointParameter): string {
  if (p.required) return "required";
  const d = p.schema.default;
  if (d === undefined) return "see rules";
  return typeof d === "number" ? String(d) : `\`${String(d)}\``;
}

/** Where the values of a path's ticker are listed. */
function catalogOf(path: string): string {
  return path.startsWith("/v1/volatility")
    ? "[`GET /v1/volatility`](/docs/api/volatility)"
    : "[`GET /v1/indices`](/docs/api/indices)";
}

function errorLink(code: ErrorCode): string {
  return `[\`${code}\`](/docs/errors#${code})`;
}

function rulesOf(p: EndpointParameter, path: string): string {
  if (p.in === "path")
    return `${p.description}; ${catalogOf(path)} lists the values; an unknown one gives ${errorLink(p.invalid)}`;
  const range =
    p.schema.minimum !== undefined
      ? ` Outside ${p.schema.minimum} to ${p.schema.maximum}`
      : p.schema.enum
        ? ` Any other value`
        : " A value that does not parse";
  return `${p.description}${range} gives ${errorLink(p.invalid)} (${ERRORS[p.invalid].status}).`;
}

/** The table's rows for an endpoint, in declaration order. */
export function paramRows(endpoint: EndpointName): string[][] {
  const { path } = ENDPOINTS[endpoint];
  return endpointParameters(endpoint).map((p) => [p.name, p.in, typeOf(p), defaultOf(p), rulesOf(p, path)]);
}
