import "server-only";
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { corsHeaders, originAllowed } from "@/lib/api/cors";
import { ApiError, errorBody, errorMessage } from "@/lib/api/errors";
import { admitAddressOnly, authenticate, rateLimitHeaders, toApiError } from "@/lib/api/pipeline";
import { config } from "@/lib/config";
import { KEY_PREFIX } from "@/lib/keys/key-format";
import type { McpRequestContext } from "@/lib/mcp/call-tool";
import { createMcpServer } from "@/lib/mcp/create-server";

/** Stateless Streamable HTTP: JSON-RPC over POST; no SSE stream on GET and no session to DELETE. */
const ALLOW = "POST";
export const MCP_ENDPOINT = "/mcp";

/** Query parameter names clients use for credentials (compared lower-case, without `-` and `_`). */
const CREDENTIAL_PARAMS = new Set(["key", "apikey", "xapikey", "token", "accesstoken", "authorization", "bearer", "secret"]);

/** True when the URL carries something that looks like a key: URLs end up in logs and histories. */
export function keyInUrl(url: URL): boolean {
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase().replaceAll(/[-_]/g, "")) || value.includes(KEY_PREFIX)) return true;
  }
  return false;
}

function preflightHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, X-API-Key, Content-Type, Accept, Mcp-Protocol-Version",
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  };
}

/**
 * The MCP endpoint: X-Request-Id -> Origin (a present Origin that is not ours is 403, as the MCP
 * transport requires against DNS rebinding) -> address throttle -> method -> key (never from the
 * URL) -> a fresh server and transport. Every message needs a valid key; only tools/call spends
 * from the key's windows and is metered, one request per call (see call-tool.ts).
 */
export function mcpRoute() {
  const run = async (request: Request): Promise<Response> => {
    const requestId = randomUUID();
    const origin = request.headers.get("origin");
    const base: Record<string, string> = { "X-Request-Id": requestId, "Cache-Control": "no-store", ...corsHeaders(origin) };
    try {
      if (origin !== null && !originAllowed(origin)) {
        throw new ApiError("error", {
          status: 403,
          message: "This Origin may not call the MCP endpoint. Connect from an MCP client or a server; browsers are served on the operator's own origins only.",
        });
      }
      if (request.method === "OPTIONS" && origin && request.headers.get("access-control-request-method")) {
        return new Response(null, { status: 204, headers: { "X-Request-Id": requestId, ...preflightHeaders(origin) } });
      }
      await admitAddressOnly(request.headers);
      if (request.method !== ALLOW) {
        throw new ApiError("method_not_allowed", {
          message: errorMessage("method_not_allowed", { method: request.method, allow: ALLOW }),
          headers: { Allow: ALLOW },
        });
      }
      if (keyInUrl(new URL(request.url))) {
        throw new ApiError("invalid_api_key", {
          message:
            "API keys are not accepted in the URL. Send the key as 'Authorization: Bearer <API_KEY>' or 'X-API-Key: <API_KEY>'; a key that was put in a URL may have been logged, so rotate it.",
        });
      }
      const ctx: McpRequestContext = { requestId, key: await authenticate(request.headers), decision: null };
      const server = createMcpServer(ctx);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(request);
        const headers = new Headers(response.headers);
        for (const [name, value] of Object.entries({ ...base, ...(ctx.decision ? rateLimitHeaders(ctx.decision) : {}) })) headers.set(name, value);
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      } finally {
        await server.close();
      }
    } catch (caught) {
      const apiError = toApiError(caught, requestId, MCP_ENDPOINT);
      const headers = {
        ...base,
        ...(apiError.code === "invalid_api_key" ? { "WWW-Authenticate": 'Bearer realm="api"' } : {}),
        ...apiError.headers,
      };
      return Response.json(errorBody(apiError.code, apiError.message, requestId, config().baseUrl), { status: apiError.status, headers });
    }
  };
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}
