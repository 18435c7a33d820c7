import "server-only";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { preflightFor } from "@/lib/api/responses";
import { ApiError, ERRORS, errorBody } from "@/lib/api/errors";
import { rateLimitHeaders, withKey, type Services, type Surface } from "@/lib/api/pipeline";
import { fromWebRequest, toResponse, type ApiRequest, type ApiResult } from "@/lib/api/result";
import { isClientAbort } from "@/lib/db/unavailable";
import { KEY_PREFIX } from "@/lib/keys/api-key";
import type { McpRequestContext } from "@/lib/mcp/call-tool";
import { createMcpServer } from "@/lib/mcp/create-server";

/** Stateless Streamable HTTP: JSON-RPC over POST; no SSE stream on GET and no session to DELETE. */
const ALLOW = "POST";
export const MCP_ENDPOINT = "/mcp";
/** The largest JSON-RPC body read (the MCP SDK's own default limit). */
const MAX_BODY = 4 * 1024 * 1024;

/** Query parameter names clients use for credentials (compared lower-case, without `-` and `_`). */
const CREDENTIAL_PARAMS = new Set([
  "key",
  "apikey",
  "xapikey",
  "token",
  "accesstoken",
  "authorization",
  "bearer",
  "secret",
]);

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
  key: "required",
  windows: false, // each tools/call spends and is metered (call-tool.ts)
  meter: false,
  beforeKey: refuseKeyInUrl,
};

function refuseKeyInUrl(request: ApiRequest): void {
  if (keyInUrl(new URL(request.path ?? "/", "http://localhost"))) {
    throw new ApiError("invalid_api_key", {
      message:
        "API keys are not accepted in the URL. Send the key as 'Authorization: Bearer <API_KEY>' or 'X-API-Key: <API_KEY>'; a key that was put in a URL may have been logged, so rotate it.",
    });
  }
}

/** A JSON-RPC error answered before the transport (the shape the SDK's transport uses). */
function jsonRpcError(status: number, code: number, message: string, base: Record<string, string>): ApiResult {
  return {
    status,
    headers: { ...base, "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
  };
}

const TOO_LARGE = `Payload Too Large: the body exceeds ${MAX_BODY} bytes`;

/**
 * The body's bytes, counted as they arrive: past MAX_BODY the read stops (the rest is never
 * buffered) and the answer is 413, chunked or not. Null when the client went away mid-body.
 */
async function readBody(request: Request): Promise<Uint8Array | "too_large" | null> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY) {
        void reader.cancel().catch(() => undefined);
        return "too_large";
      }
      parts.push(value);
    }
  } catch (error) {
    if (isClientAbort(error) || isClientAbort((error as { cause?: unknown })?.cause)) return null;
    throw error;
  }
  return Buffer.concat(parts, total);
}

/**
 * The body as JSON, or a JSON-RPC error: unparseable (-32700), too large (413, the connection
 * closed: the rest of the body is not read), or an empty batch, which JSON-RPC 2.0 answers with
 * one Invalid Request (-32600).
 */
async function readMessage(request: Request, base: Record<string, string>): Promise<{ parsed: unknown } | ApiResult> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY) return jsonRpcError(413, -32000, TOO_LARGE, { ...base, Connection: "close" });
  const body = await readBody(request);
  if (body === "too_large") return jsonRpcError(413, -32000, TOO_LARGE, { ...base, Connection: "close" });
  // The client went away before its body ended: nobody reads this answer, and nothing failed here.
  if (body === null)
    return jsonRpcError(400, -32700, "Parse error: the body ended before it was complete", {
      ...base,
      Connection: "close",
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON", base);
  }
  if (Array.isArray(parsed) && parsed.length === 0)
    return jsonRpcError(400, -32600, "Invalid Request: an empty batch", base);
  const invalid = invalidToolArguments(parsed);
  if (invalid)
    return { status: 200, headers: { ...base, "Content-Type": "application/json" }, body: JSON.stringify(invalid) };
  return { parsed };
}

/** The JSON type of a value, in words, for messages. */
function jsonType(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object"
        : `a ${typeof value}`;
}

/**
 * A `tools/call` whose `arguments` is present but not an object (an array, null, a number...):
 * the request does not satisfy CallToolRequest, so it is a protocol error, -32602 Invalid params
 * with a readable message (MCP specification, server/tools "Error Handling": malformed requests
 * are JSON-RPC errors, https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling).
 */
export function invalidToolArguments(
  message: unknown,
): { jsonrpc: "2.0"; id: unknown; error: { code: number; message: string } } | null {
  if (!message || typeof message !== "object" || Array.isArray(message)) return null;
  const m = message as { method?: unknown; params?: unknown; id?: unknown };
  if (m.method !== "tools/call" || !m.params || typeof m.params !== "object" || !("arguments" in m.params)) return null;
  const args = (m.params as { arguments?: unknown }).arguments;
  if (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args))) return null;
  return {
    jsonrpc: "2.0",
    id: m.id ?? null,
    error: {
      code: -32602,
      message: `Invalid params: tools/call 'arguments' must be an object of named arguments (for example {"ticker": "PMX-ELEC"}), not ${jsonType(args)}.`,
    },
  };
}

/**
 * A tool call that met a dependency outage answers as /v1 does: HTTP 503 with Retry-After, and
 * a JSON-RPC error (same id) whose message and data give the retry time. The MCP SDK client
 * rejects the call with the status and this body, so the caller sees a retryable failure rather
 * than a tool result the model would read as an answer.
 */
function unavailableAnswer(baseUrl: string, id: unknown, requestId: string, base: Record<string, string>): ApiResult {
  const retryAfter = ERRORS.unavailable.retryAfter;
  const { error } = errorBody(
    "unavailable",
    `${ERRORS.unavailable.message} Retry after ${retryAfter} s.`,
    requestId,
    baseUrl,
  );
  return {
    status: 503,
    headers: { ...base, "Content-Type": "application/json", "Retry-After": String(retryAfter) },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: id ?? null,
      error: { code: -32000, message: `${error.code}: ${error.message}`, data: { ...error, retryAfter } },
    }),
  };
}

/**
 * The MCP endpoint, through the admission wrapper (lib/api/pipeline.ts): X-Request-Id -> Origin (a present
 * Origin that is not ours is 403, as the MCP transport requires against DNS rebinding) ->
 * preflight -> method -> address throttle -> key (never from the URL) -> a fresh server and
 * transport. Every message needs a valid key; only tools/call spends from the key's windows and
 * is metered, one request per call (see call-tool.ts).
 */
export async function answerMcp(services: Services, request: Request): Promise<ApiResult> {
  return withKey(services, fromWebRequest(request), surface, async ({ requestId, base, key }) => {
    const ctx: McpRequestContext = { services, requestId, key: key!, decision: null, unavailable: false };
    const message = await readMessage(request, base);
    if (!("parsed" in message)) return message;
    const server = createMcpServer(ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: message.parsed });
      if (ctx.unavailable && !Array.isArray(message.parsed))
        return unavailableAnswer(services.config.baseUrl, (message.parsed as { id?: unknown }).id, requestId, base);
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) headers[name] = value;
      Object.assign(headers, base, ctx.decision ? rateLimitHeaders(ctx.decision, services.clock.now()) : {});
      const body = response.body ? await response.text() : null;
      return { status: response.status, headers, body };
    } finally {
      await server.close();
    }
  });
}

/** The exports of app/mcp/route.ts, given the root there. */
export function mcpRoute(services: () => Services) {
  const run = async (request: Request): Promise<Response> => {
    const s = services();
    return toResponse(s, await answerMcp(s, request));
  };
  return { GET: run, HEAD: run, POST: run, PUT: run, PATCH: run, DELETE: run, OPTIONS: run };
}
