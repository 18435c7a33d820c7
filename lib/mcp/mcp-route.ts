import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { preflightFor } from "@/lib/api/cors";
import { ApiError } from "@/lib/api/errors";
import { admitAddressOnly, authenticate, rateLimitHeaders } from "@/lib/api/pipeline";
import { fromWebRequest, toResponse, type ApiResult } from "@/lib/api/result";
import { shell, type Surface } from "@/lib/api/shell";
import { KEY_PREFIX } from "@/lib/keys/key-format";
import type { McpRequestContext } from "@/lib/mcp/call-tool";
import { createMcpServer } from "@/lib/mcp/create-server";
import { root } from "@/lib/root";

/** Stateless Streamable HTTP: JSON-RPC over POST; no SSE stream on GET and no session to DELETE. */
const ALLOW = "POST";
export const MCP_ENDPOINT = "/mcp";
/** The largest JSON-RPC body read (the MCP SDK's own default limit). */
const MAX_BODY = 4 * 1024 * 1024;

/** Query parameter names clients use for credentials (compared lower-case, without `-` and `_`). */
const CREDENTIAL_PARAMS = new Set(["key", "apikey", "xapikey", "token", "accesstoken", "authorization", "bearer", "secret"]);

/** True when the URL carries something that looks like a key: URLs end up in logs and histories. */
export function keyInUrl(url: URL): boolean {
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase().replaceAll(/[-_]/g, "")) || value.includes(KEY_PREFIX)) return true;
  }
  return false;
}

const surface: Surface = {
  label: MCP_ENDPOINT,
  methods: [ALLOW],
  allow: ALLOW,
  preflight: preflightFor([ALLOW], ["Accept", "Mcp-Protocol-Version"]),
  refuseForeignOrigin: {
    message:
      "This Origin may not call the MCP endpoint. Connect from an MCP client or a server; browsers are served on the operator's own origins only.",
  },
  throttle: admitAddressOnly,
};

/** A JSON-RPC error answered before the transport (the shape the SDK's transport uses). */
function jsonRpcError(status: number, code: number, message: string, base: Record<string, string>): ApiResult {
  return {
    status,
    headers: { ...base, "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
  };
}

/**
 * The body as JSON, or a JSON-RPC error: unparseable (-32700), too large, or an empty batch,
 * which JSON-RPC 2.0 answers with one Invalid Request (-32600).
 */
async function readMessage(request: Request, base: Record<string, string>): Promise<{ parsed: unknown } | ApiResult> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY) return jsonRpcError(413, -32000, `Payload Too Large: the body exceeds ${MAX_BODY} bytes`, base);
  const text = await request.text();
  if (text.length > MAX_BODY) return jsonRpcError(413, -32000, `Payload Too Large: the body exceeds ${MAX_BODY} bytes`, base);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON", base);
  }
  if (Array.isArray(parsed) && parsed.length === 0) return jsonRpcError(400, -32600, "Invalid Request: an empty batch", base);
  return { parsed };
}

/**
 * The MCP endpoint, in the request shell (lib/api/shell.ts): X-Request-Id -> Origin (a present
 * Origin that is not ours is 403, as the MCP transport requires against DNS rebinding) ->
 * preflight -> method -> address throttle -> key (never from the URL) -> a fresh server and
 * transport. Every message needs a valid key; only tools/call spends from the key's windows and
 * is metered, one request per call (see call-tool.ts).
 */
export async function answerMcp(request: Request): Promise<ApiResult> {
  return shell(fromWebRequest(request), surface, async ({ requestId, base }) => {
    await admitAddressOnly(request.headers);
    if (keyInUrl(new URL(request.url))) {
      throw new ApiError("invalid_api_key", {
        message:
          "API keys are not accepted in the URL. Send the key as 'Authorization: Bearer <API_KEY>' or 'X-API-Key: <API_KEY>'; a key that was put in a URL may have been logged, so rotate it.",
      });
    }
    const ctx: McpRequestContext = { requestId, key: await authenticate(request.headers), decision: null };
    const message = await readMessage(request, base);
    if (!("parsed" in message)) return message;
    const server = createMcpServer(ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: message.parsed });
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) headers[name] = value;
      Object.assign(headers, base, ctx.decision ? rateLimitHeaders(ctx.decision, root().clock.now()) : {});
      const body = response.body ? await response.text() : null;
      return { status: response.status, headers, body };
    } finally {
      await server.close();
    }
  });
}

export function mcpRoute() {
  const run = async (request: Request): Promise<Response> => toResponse(await answerMcp(request));
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}
