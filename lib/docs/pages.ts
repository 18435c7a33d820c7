/**
 * The docs site's page registry: one entry per page, in reading order. The sidebar, previous/next
 * links, static params, the search index and the link tests all read this list.
 */

export interface DocPage {
  /** Path below /docs, without slashes at either end; "" is the overview at /docs. */
  slug: string;
  /** Page title (the h1 and the browser title). */
  title: string;
  /** Shorter label for the sidebar; defaults to the title. */
  nav?: string;
  /** One line for search results and the page's meta description. */
  description: string;
  group: DocGroup;
  /** MDX source below content/docs. */
  file: string;
}

export const DOC_GROUPS = ["Getting started", "API reference", "Data and methodology", "More"] as const;
export type DocGroup = (typeof DOC_GROUPS)[number];

export const DOC_PAGES: readonly DocPage[] = [
  {
    slug: "",
    title: "Overview",
    description: "What the benchmark data service offers and where to start.",
    group: "Getting started",
    file: "index.mdx",
  },
  {
    slug: "quickstart",
    title: "Quickstart",
    description: "Mint a key, make a first call with curl, TypeScript or Python, and read levels as decimals.",
    group: "Getting started",
    file: "quickstart.mdx",
  },
  {
    slug: "authentication",
    title: "Authentication",
    description: "API keys, the two headers, key format, rotation, revocation and CORS.",
    group: "Getting started",
    file: "authentication.mdx",
  },
  {
    slug: "limits",
    title: "Rate limits",
    description:
      "Minute and day windows per key, every rate-limit header, Retry-After, backoff and the address throttle.",
    group: "Getting started",
    file: "limits.mdx",
  },
  {
    slug: "limits/backoff",
    title: "Retries and backoff",
    description:
      "Retry code for TypeScript and Python that honours Retry-After, and pacing requests from the rate-limit headers.",
    group: "Getting started",
    file: "limits/backoff.mdx",
  },
  {
    slug: "errors",
    title: "Errors",
    description: "Every error code the API returns, with status, cause, remedy and an example body.",
    group: "Getting started",
    file: "errors.mdx",
  },
  {
    slug: "conventions",
    title: "Conventions",
    description: "Decimal strings, timestamps, case-insensitive tickers, ordering and the response envelope.",
    group: "Getting started",
    file: "conventions.mdx",
  },
  {
    slug: "versioning",
    title: "Versioning",
    description: "The /v1 API version and the data-level version labels inside payloads.",
    group: "Getting started",
    file: "versioning.mdx",
  },
  {
    slug: "api",
    title: "API reference",
    nav: "Endpoints overview",
    description: "All nine endpoints, the success envelope and the errors every endpoint can return.",
    group: "API reference",
    file: "api/index.mdx",
  },
  {
    slug: "api/service-index",
    title: "GET /v1",
    nav: "GET /v1",
    description: "Service index, health check and the authoritative quota report for the calling key.",
    group: "API reference",
    file: "api/service-index.mdx",
  },
  {
    slug: "api/indices",
    title: "GET /v1/indices",
    nav: "List indices",
    description: "The index catalog: every published index with its status and freshness.",
    group: "API reference",
    file: "api/indices.mdx",
  },
  {
    slug: "api/index-latest",
    title: "GET /v1/indices/{ticker}/latest",
    nav: "Latest index level",
    description: "The current level of one index, undelayed, with version labels and data quality.",
    group: "API reference",
    file: "api/index-latest.mdx",
  },
  {
    slug: "api/index-history",
    title: "GET /v1/indices/{ticker}/history",
    nav: "Index level history",
    description: "Hourly or daily levels over the trailing 90-day window, with the clamping rules.",
    group: "API reference",
    file: "api/index-history.mdx",
  },
  {
    slug: "api/reconstitutions",
    title: "GET /v1/indices/{ticker}/reconstitutions",
    nav: "Reconstitutions",
    description: "Composition changes of one index, newest first.",
    group: "API reference",
    file: "api/reconstitutions.mdx",
  },
  {
    slug: "api/volatility",
    title: "GET /v1/volatility",
    nav: "List volatility series",
    description: "The volatility catalog: every listed series with its latest published value.",
    group: "API reference",
    file: "api/volatility.mdx",
  },
  {
    slug: "api/volatility-latest",
    title: "GET /v1/volatility/{ticker}/latest",
    nav: "Latest volatility",
    description: "Definition and latest computation of one volatility series: tenors, band, attribution, gates.",
    group: "API reference",
    file: "api/volatility-latest.mdx",
  },
  {
    slug: "api/volatility-latest/tick",
    title: "Volatility tick fields",
    nav: "Tick fields",
    description: "The objects inside a volatility tick: tenors, attribution, components, counterfactual and labels.",
    group: "API reference",
    file: "api/volatility-latest/tick.mdx",
  },
  {
    slug: "api/volatility-history",
    title: "GET /v1/volatility/{ticker}/history",
    nav: "Volatility history",
    description: "Published volatility values over the trailing 90-day window, newest first.",
    group: "API reference",
    file: "api/volatility-history.mdx",
  },
  {
    slug: "api/downloads",
    title: "GET /v1/downloads",
    nav: "Downloads pointer",
    description: "Where the monthly snapshot bundles and their manifest live.",
    group: "API reference",
    file: "api/downloads.mdx",
  },
  {
    slug: "api/openapi",
    title: "OpenAPI document",
    nav: "OpenAPI (openapi.json)",
    description: "The machine-readable OpenAPI 3.1 description of the whole API, for generated clients and tools.",
    group: "API reference",
    file: "api/openapi.mdx",
  },
  {
    slug: "downloads",
    title: "Downloads and snapshot bundles",
    nav: "Snapshot bundles",
    description: "Monthly point-in-time CSV bundles, the manifest format, checksums and automation.",
    group: "Data and methodology",
    file: "downloads.mdx",
  },
  {
    slug: "downloads/bundle-files",
    title: "Bundle files and verifying",
    nav: "Bundle files",
    description: "Every file and column of a month's bundle, and how each published number recomputes from them.",
    group: "Data and methodology",
    file: "downloads/bundle-files.mdx",
  },
  {
    slug: "methodology",
    title: "Methodology",
    description:
      "The benchmark statements, and how index levels are computed: baskets, chain-linking, rounding and reconstitutions.",
    group: "Data and methodology",
    file: "methodology.mdx",
  },
  {
    slug: "methodology/volatility",
    title: "Volatility methodology",
    nav: "Volatility",
    description:
      "How a volatility value is computed: the partition, de-vigging, variance to resolution, tenors, tiers and clock speed.",
    group: "Data and methodology",
    file: "methodology/volatility.mdx",
  },
  {
    slug: "methodology/calibration",
    title: "Ordered partitions and calibration",
    nav: "Calibration",
    description:
      "Ordered partitions priced by the cumulative form, the one-tick floor, the calendar clock's prior speed, and the check against a known truth.",
    group: "Data and methodology",
    file: "methodology/calibration.mdx",
  },
  {
    slug: "methodology/band-and-gates",
    title: "Band, attribution and gates",
    description:
      "The band around each volatility value, its attribution to legs, the counterfactual, and the gates that flag or withhold a value.",
    group: "Data and methodology",
    file: "methodology/band-and-gates.mdx",
  },
  {
    slug: "methodology/forecast-record",
    title: "Forecast record",
    description:
      "Every closed window's expected move against the realized move, and what a calibrated volatility measure shows.",
    group: "Data and methodology",
    file: "methodology/forecast-record.mdx",
  },
  {
    slug: "methodology/recomputing",
    title: "Back-calculated history and recomputing",
    nav: "Recomputing published values",
    description:
      "The hours before a launch, and the bundle files and fields that reproduce every published index level and volatility value.",
    group: "Data and methodology",
    file: "methodology/recomputing.mdx",
  },
  {
    slug: "methodology/governance",
    title: "Governance",
    description: "Input hierarchy, change and restatement policy, annual review and the cessation plan.",
    group: "Data and methodology",
    file: "methodology/governance.mdx",
  },
  {
    slug: "ingestion",
    title: "Ingestion format",
    description: "The JSONL and CSV market-snapshot format, rejection rules and the ingest command.",
    group: "Data and methodology",
    file: "ingestion.mdx",
  },
  {
    slug: "catalog",
    title: "Catalog and venues",
    description: "The catalog file of indices and volatility series, and finding and previewing the markets it names.",
    group: "Data and methodology",
    file: "catalog.mdx",
  },
  {
    slug: "catalog/collector",
    title: "Applying a catalog and collecting",
    nav: "Applying and collecting",
    description:
      "Validating and applying a catalog, the Polymarket and Kalshi connectors, the collector, and an operator's first benchmark.",
    group: "Data and methodology",
    file: "catalog/collector.mdx",
  },
  {
    slug: "mcp",
    title: "MCP server",
    description: "The same data for AI agents over the Model Context Protocol, with the same key and limits.",
    group: "More",
    file: "mcp.mdx",
  },
  {
    slug: "attribution",
    title: "Terms, license and attribution",
    nav: "Terms and attribution",
    description: "The terms of use, the data license and the attribution line in meta.attribution.",
    group: "More",
    file: "attribution.mdx",
  },
];

/** Site path of a page: /docs or /docs/<slug>. */
export function docHref(page: Pick<DocPage, "slug">): string {
  return page.slug === "" ? "/docs" : `/docs/${page.slug}`;
}

/** The page at a site path (a trailing slash, query or hash is ignored); undefined when none. */
export function findDocPage(pathname: string): DocPage | undefined {
  const path = pathname.split(/[?#]/)[0]?.replace(/\/+$/, "") ?? "";
  return DOC_PAGES.find((p) => docHref(p) === path);
}

/** The page for the catch-all route's segments (undefined or [] is the overview). */
export function pageForSegments(segments: readonly string[] | undefined): DocPage | undefined {
  const slug = (segments ?? []).join("/");
  return DOC_PAGES.find((p) => p.slug === slug);
}

export function navLabel(page: DocPage): string {
  return page.nav ?? page.title;
}

/** Pages grouped for the sidebar, in registry order. */
export function docGroups(): { group: DocGroup; pages: DocPage[] }[] {
  return DOC_GROUPS.map((group) => ({ group, pages: DOC_PAGES.filter((p) => p.group === group) }));
}

/** Reading order neighbours for the previous/next links. */
export function neighbours(page: DocPage): { prev: DocPage | null; next: DocPage | null } {
  const i = DOC_PAGES.indexOf(page);
  return { prev: DOC_PAGES[i - 1] ?? null, next: DOC_PAGES[i + 1] ?? null };
}
