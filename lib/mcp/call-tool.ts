import "server-only";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorBody } from "@/lib/api/errors";
import { envelope, KeyedRefusal, spendWindows, toApiError, type Services } from "@/lib/api/pipeline";
import type { ResolvedKey } from "@/lib/keys/api-key";
import { tickerArgument, toQuery } from "@/lib/mcp/tool-input";
import type { Tool } from "@/lib/mcp/tools";
import type { LimitDecision } from "@/lib/ratelimit";

/** One MCP HTTP request: its id, the key that authenticated it, and the windows after its last tool call. */
export interface McpRequestContext {
  services: Services;
  requestId: string;
  key: ResolvedKey;
  decision: LimitDecision | null;
  /** Set when a tool call met a dependency outage: the route answers 503 with Retry-After (mcp-route.ts). */
  unavailable?: boolean;
}

/** The usage-view label of a tool: `mcp:<tool_name>`, beside the /v1 route templates. */
export const meterLabel = (tool: Pick<Tool, "name">) => `mcp:${tool.name}`;

/**
 * One tool call through the /v1 pipeline: it spends one request from the key's minute and day
 * windows, runs the endpoint's handler on the arguments as a query string, and is metered. The
 * result's structuredContent is the API's body: `{data, meta}`, or `{error}` with isError.
 */
export async function callTool(
  ctx: McpRequestContext,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  let status = 500;
  let errorCode: string | null = "internal_error";
  try {
    const { services } = ctx;
    const decision = await spendWindows(services, ctx.key);
    ctx.decision = decision;
    const payload = await tool.endpoint.handler({
      services,
      requestId: ctx.requestId,
      key: ctx.key,
      decision,
      query: toQuery(args, tool.input.queryNames),
      params: tool.ticker ? { ticker: tickerArgument(args) } : {},
    });
    const body = envelope(services, payload);
    const text = tool.render(body as never);
    status = 200;
    errorCode = null;
    return {
      content: [
        { type: "text", text },
        // The full body as JSON too, for clients that pass only text content to the model.
        { type: "text", text: JSON.stringify(body) },
      ],
      structuredContent: body,
    };
  } catch (caught) {
    let error = caught;
    if (caught instanceof KeyedRefusal) {
      ctx.decision = caught.decision;
      error = caught.error;
    }
    const apiError = toApiError(error, ctx.requestId, meterLabel(tool), ctx.services.database);
    status = apiError.status;
    errorCode = apiError.code;
    if (apiError.code === "unavailable") ctx.unavailable = true;
    const { error: e } = errorBody(apiError.code, apiError.message, ctx.requestId, ctx.services.config.baseUrl);
    return {
      isError: true,
      content: [{ type: "text", text: `${e.code}: ${e.message} (requestId ${e.requestId}; see ${e.docsUrl})` }],
      structuredContent: { error: e },
    };
  } finally {
    // The request log shows a tool call as the call with its arguments (never a header).
    const path = `tools/call ${tool.name} ${JSON.stringify(args)}`;
    const { meter, clock, journals } = ctx.services;
    meter.record(ctx.key.id, meterLabel(tool), status, clock.now(), {
      requestId: ctx.requestId,
      method: "MCP",
      path,
      errorCode,
    });
    journals.flush(); // before the answer leaves (lib/plumbing/journal.ts)
  }
}
