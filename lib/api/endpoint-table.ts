import type { NamedErrorCode } from "@/lib/api/errors";
import { HISTORY_MAX_DAYS, INTERVALS_TEXT } from "@/lib/data/window";
import {
  indexHistoryQuery,
  rangeOf,
  reconstitutionsQuery,
  type QuerySchema,
  volatilityHistoryQuery,
} from "@/lib/api/params";

/**
 * Every /v1 endpoint, declared once: its route template (also its usage-metering label), the
 * summary and description, its query schema and the error codes of its own. The pipeline's
 * routes and query parsing (lib/api/endpoints.ts), the OpenAPI document, the MCP tools and the
 * docs' parameter tables are all read from here. No handlers: this module imports no data access.
 */
export interface EndpointSpec {
  path: string;
  /** OpenAPI operation summary. */
  summary: string;
  /** One sentence: the service index, the MCP tool and the OpenAPI description. */
  description: string;
  /** The query parameters (lib/api/params.ts); none when absent. */
  query?: QuerySchema;
  /** Error codes this endpoint gives beyond the ones every endpoint can give (COMMON_ERRORS). */
  errors: readonly NamedErrorCode[];
}

/** What any /v1 endpoint can answer: key, throttles, method, faults. */
export const COMMON_ERRORS: readonly NamedErrorCode[] = [
  "invalid_api_key",
  "ip_rate_limited",
  "rate_limited",
  "daily_limit_reached",
  "method_not_allowed",
  "internal_error",
  "unavailable",
];

export const ENDPOINTS = {
  service: {
    path: "/v1",
    summary: "Service index and quota report",
    description: "Service index and the calling key's quota (counts as one request).",
    errors: [],
  },
  indices: { path: "/v1/indices", summary: "Index catalog", description: "Catalog of indices.", errors: [] },
  indexLatest: {
    path: "/v1/indices/{ticker}/latest",
    summary: "Latest index level",
    description: "Latest level of an index.",
    errors: ["not_found"],
  },
  indexHistory: {
    path: "/v1/indices/{ticker}/history",
    summary: "Index level history",
    description: `Level history, oldest first, within the trailing ${HISTORY_MAX_DAYS}-day window (interval ${INTERVALS_TEXT}).`,
    query: indexHistoryQuery,
    errors: ["not_found", "invalid_parameter", "invalid_interval", "invalid_window"],
  },
  indexReconstitutions: {
    path: "/v1/indices/{ticker}/reconstitutions",
    summary: "Reconstitution events",
    description: `Reconstitution events, newest first (${rangeOf(reconstitutionsQuery, "limit")}).`,
    query: reconstitutionsQuery,
    errors: ["not_found", "invalid_parameter"],
  },
  volatility: {
    path: "/v1/volatility",
    summary: "Volatility catalog",
    description: "Catalog of published volatility series with their latest published headline.",
    errors: [],
  },
  volatilityLatest: {
    path: "/v1/volatility/{ticker}/latest",
    summary: "Latest volatility computation",
    description: "Series definition and latest computation (status and publication state included).",
    errors: ["not_found"],
  },
  volatilityHistory: {
    path: "/v1/volatility/{ticker}/history",
    summary: "Volatility history",
    description: `Volatility history, newest first (${rangeOf(volatilityHistoryQuery, "limit")}; includeGated=true adds withheld computations).`,
    query: volatilityHistoryQuery,
    errors: ["not_found", "invalid_parameter"],
  },
  downloads: {
    path: "/v1/downloads",
    summary: "Snapshot bundle pointer",
    description: "Where the monthly snapshot bundles and their latest manifest are.",
    errors: [],
  },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** The path parameters of a route template: `{ticker}` -> ["ticker"]. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}
