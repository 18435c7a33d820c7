import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { callTool, type McpRequestContext } from "@/lib/mcp/call-tool";
import { tools } from "@/lib/mcp/tools";
import { appVersion } from "@/lib/version";

/** Every tool reads published data and changes nothing; the same call gives the same answer. */
const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const INSTRUCTIONS = [
  "Read-only benchmark data about prediction markets: indices (levels are exact decimal strings based at 100) and volatility series (values in probability points).",
  "Every tool call counts as one request against the API key's minute and day windows, exactly like a call to /v1; get_quota shows what is left.",
  "Quote a volatility value together with its tenor in days and its series' definitionLine. Anything published from the data must carry meta.attribution.",
  "Errors carry the API's error code, message and docsUrl; a rate-limited call says how many seconds to wait.",
].join(" ");

/** A new server per HTTP request (stateless): its tools act for the key that request authenticated. */
export function createMcpServer(ctx: McpRequestContext): McpServer {
  const server = new McpServer(
    { name: "pmbench", title: "PM Benchmarks", version: appVersion() },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input.schema,
        annotations: { title: tool.title, ...READ_ONLY },
      },
      (args: Record<string, unknown>) => callTool(ctx, tool, args),
    );
  }
  return server;
}
