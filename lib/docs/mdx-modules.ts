import type { MDXContent } from "mdx/types";

/** Static imports of every page's MDX (keyed by DocPage.file), so the bundler sees each one. */
export const MDX_MODULES: Readonly<Record<string, () => Promise<{ default: MDXContent }>>> = {
  "index.mdx": () => import("@/content/docs/index.mdx"),
  "quickstart.mdx": () => import("@/content/docs/quickstart.mdx"),
  "authentication.mdx": () => import("@/content/docs/authentication.mdx"),
  "limits.mdx": () => import("@/content/docs/limits.mdx"),
  "errors.mdx": () => import("@/content/docs/errors.mdx"),
  "conventions.mdx": () => import("@/content/docs/conventions.mdx"),
  "versioning.mdx": () => import("@/content/docs/versioning.mdx"),
  "api/index.mdx": () => import("@/content/docs/api/index.mdx"),
  "api/service-index.mdx": () => import("@/content/docs/api/service-index.mdx"),
  "api/indices.mdx": () => import("@/content/docs/api/indices.mdx"),
  "api/index-latest.mdx": () => import("@/content/docs/api/index-latest.mdx"),
  "api/index-history.mdx": () => import("@/content/docs/api/index-history.mdx"),
  "api/reconstitutions.mdx": () => import("@/content/docs/api/reconstitutions.mdx"),
  "api/volatility.mdx": () => import("@/content/docs/api/volatility.mdx"),
  "api/volatility-latest.mdx": () => import("@/content/docs/api/volatility-latest.mdx"),
  "api/volatility-history.mdx": () => import("@/content/docs/api/volatility-history.mdx"),
  "api/downloads.mdx": () => import("@/content/docs/api/downloads.mdx"),
  "api/openapi.mdx": () => import("@/content/docs/api/openapi.mdx"),
  "downloads.mdx": () => import("@/content/docs/downloads.mdx"),
  "methodology.mdx": () => import("@/content/docs/methodology.mdx"),
  "ingestion.mdx": () => import("@/content/docs/ingestion.mdx"),
  "catalog.mdx": () => import("@/content/docs/catalog.mdx"),
  "mcp.mdx": () => import("@/content/docs/mcp.mdx"),
  "attribution.mdx": () => import("@/content/docs/attribution.mdx"),
};
