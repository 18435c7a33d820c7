import { matchRoute, pathSegments, underV1 } from "@/lib/api/node-adapter";

/** Surfaces whose paths are labelled by their first segment (their pages and files are many). */
const PREFIXES = ["docs", "portal", "api", "downloads", "indices", "volatility", "status", "changelog", "dev", "_next"];

/**
 * The route template of a request path for metrics and the access log: a /v1 endpoint's template
 * (/v1/indices/{ticker}/latest), `/v1/*` for an unknown /v1 path, the few fixed paths as they
 * are, `/<surface>/*` for pages and files, `other` for the rest. Bounded: never a raw path.
 */
export function routeLabel(path: string): string {
  if (underV1(path)) {
    const segments = pathSegments(path);
    return (segments && matchRoute(segments)?.endpoint.path) ?? "/v1/*";
  }
  if (
    /^\/(mcp|healthz|livez|readyz|metrics|status\.json|openapi\.json|llms\.txt|robots\.txt|sitemap\.xml|operator|favicon\.ico|icon\.svg)?$/.test(
      path,
    )
  )
    return path;
  const first = path.split("/")[1] ?? "";
  return PREFIXES.includes(first) ? `/${first}/*` : "other";
}
