import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { baseUrl, call } from "../support/api";

export const TOOL_NAMES = [
  "list_indices",
  "get_index_latest",
  "get_index_history",
  "get_index_reconstitutions",
  "list_volatility",
  "get_volatility_latest",
  "get_volatility_history",
  "get_downloads",
  "get_quota",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The /v1 route each tool serves. */
const V1_PATHS: Record<ToolName, string> = {
  list_indices: "/v1/indices",
  get_index_latest: "/v1/indices/{ticker}/latest",
  get_index_history: "/v1/indices/{ticker}/history",
  get_index_reconstitutions: "/v1/indices/{ticker}/reconstitutions",
  list_volatility: "/v1/volatility",
  get_volatility_latest: "/v1/volatility/{ticker}/latest",
  get_volatility_history: "/v1/volatility/{ticker}/history",
  get_downloads: "/v1/downloads",
  get_quota: "/v1",
};

export type Args = Record<string, string | number | boolean>;

/** The /v1 request equivalent to a tool call: the ticker in the path, the other arguments as the query. */
export function v1Path(tool: ToolName, args: Args = {}): string {
  const { ticker, ...rest } = args;
  const path = V1_PATHS[tool].replace("{ticker}", encodeURIComponent(String(ticker ?? "")));
  const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)])).toString();
  return query ? `${path}?${query}` : path;
}

/** The official SDK client over Streamable HTTP, with the key in the Authorization header. */
export async function connect(
  key: string,
  options: { instance?: number; headers?: Record<string, string> } = {},
): Promise<Client> {
  const client = new Client({ name: "integration-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl(options.instance)}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...options.headers } },
  });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: ToolName, args: Args = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** structuredContent of a result, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
export const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;

export function texts(result: CallToolResult): string[] {
  return result.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client hides (status codes, headers). */
export async function postMcp(
  body: unknown,
  init: { key?: string; headers?: Record<string, string>; query?: string; method?: string; instance?: number } = {},
) {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...init.headers,
  };
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  const method = init.method ?? "POST";
  const res = await fetch(`${baseUrl(init.instance)}/mcp${init.query ?? ""}`, {
    method,
    headers,
    body: method === "POST" ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { status: res.status, headers: res.headers, body: json as Record<string, any> };
}

export const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

export const INITIALIZE = rpc("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "raw-test", version: "1.0.0" },
});

/** The first ticker of each catalog (the demo market lists indices and volatility series). */
export async function catalogTickers(key: string): Promise<{ index: string; volatility: string }> {
  const indices = await call("/v1/indices", { key });
  const volatility = await call("/v1/volatility", { key });
  expect(indices.body.data.count, "the demo market lists indices").toBeGreaterThan(0);
  expect(volatility.body.data.count, "the demo market lists volatility series").toBeGreaterThan(0);
  return { index: indices.body.data.indices[0].ticker, volatility: volatility.body.data.series[0].ticker };
}

/** The tool's error is the /v1 error for the same request: code, message and docsUrl. */
export function expectSameError(result: CallToolResult, v1: Awaited<ReturnType<typeof call>>, code: string): void {
  expect(v1.body.error?.code, JSON.stringify(v1.body)).toBe(code);
  expect(result.isError).toBe(true);
  const { error } = structured(result);
  expect(Object.keys(structured(result))).toEqual(["error"]);
  expect({ code: error.code, message: error.message, docsUrl: error.docsUrl }).toEqual({
    code: v1.body.error.code,
    message: v1.body.error.message,
    docsUrl: v1.body.error.docsUrl,
  });
  expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(texts(result).join("\n")).toContain(error.message);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
export function withoutGeneratedAt(meta: Record<string, any>) {
  const { generatedAt, ...rest } = meta;
  expect(typeof generatedAt).toBe("string");
  return rest;
}
