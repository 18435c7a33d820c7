import "server-only";
import { pathParams } from "@/lib/api/endpoint-table";
import { endpoints, type Endpoint } from "@/lib/api/endpoints";
import {
  renderDownloads,
  renderIndexHistory,
  renderIndexLatest,
  renderIndices,
  renderQuota,
  renderReconstitutions,
  renderVolatilityCatalog,
  renderVolatilityHistory,
  renderVolatilityLatest,
  type Renderer,
} from "@/lib/mcp/render";
import { noQueryInput, queryInput, type ToolInput } from "@/lib/mcp/tool-input";

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The /v1 endpoint whose handler serves the tool: same validation, data and errors. */
  endpoint: Endpoint;
  input: ToolInput;
  /** True when the tool has a `ticker` argument (the endpoint's path parameter). */
  ticker: boolean;
  render: Renderer<never>;
}

const INDEX_TICKER = "Index ticker, case-insensitive; list_indices gives the valid values.";
const VOLATILITY_TICKER = "Volatility series ticker, case-insensitive; list_volatility gives the valid values.";

/** The tool's arguments, read from its endpoint: the path's ticker (described by catalog), then the query schema's parameters. */
function inputOf(endpoint: Endpoint): ToolInput {
  const ticker = pathParams(endpoint.path).includes("ticker")
    ? endpoint.path.startsWith("/v1/volatility")
      ? VOLATILITY_TICKER
      : INDEX_TICKER
    : undefined;
  return endpoint.query ? queryInput(endpoint.query, ticker) : noQueryInput(ticker);
}

function tool<D>(spec: { name: string; title: string; endpoint: Endpoint; about?: string; render: Renderer<D> }): Tool {
  const input = inputOf(spec.endpoint);
  return {
    name: spec.name,
    title: spec.title,
    description: [spec.endpoint.description, spec.about, `Same data as GET ${spec.endpoint.path}.`]
      .filter(Boolean)
      .join(" "),
    endpoint: spec.endpoint,
    input,
    ticker: "ticker" in input.schema.shape,
    render: spec.render as Renderer<never>,
  };
}

/** The MCP tools: one per /v1 endpoint, each served by that endpoint's handler. */
export const tools: readonly Tool[] = [
  tool({ name: "list_indices", title: "List indices", endpoint: endpoints.indices, render: renderIndices }),
  tool({
    name: "get_index_latest",
    title: "Latest index level",
    endpoint: endpoints.indexLatest,
    about: "Levels are exact decimal strings based at 100 on the inception date.",
    render: renderIndexLatest,
  }),
  tool({
    name: "get_index_history",
    title: "Index level history",
    endpoint: endpoints.indexHistory,
    render: renderIndexHistory,
  }),
  tool({
    name: "get_index_reconstitutions",
    title: "Index reconstitutions",
    endpoint: endpoints.indexReconstitutions,
    render: renderReconstitutions,
  }),
  tool({
    name: "list_volatility",
    title: "List volatility series",
    endpoint: endpoints.volatility,
    render: renderVolatilityCatalog,
  }),
  tool({
    name: "get_volatility_latest",
    title: "Latest volatility value",
    endpoint: endpoints.volatilityLatest,
    about: "Quote a value with its tenor (headlineTenorDays) and the series' definitionLine.",
    render: renderVolatilityLatest,
  }),
  tool({
    name: "get_volatility_history",
    title: "Volatility history",
    endpoint: endpoints.volatilityHistory,
    render: renderVolatilityHistory,
  }),
  tool({ name: "get_downloads", title: "Snapshot downloads", endpoint: endpoints.downloads, render: renderDownloads }),
  tool({
    name: "get_quota",
    title: "Quota and service index",
    endpoint: endpoints.service,
    about: "The key block reports what is left after this call.",
    render: renderQuota,
  }),
];
