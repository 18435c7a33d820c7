import { RATE_LIMIT_HEADER, RATE_LIMIT_HEADERS, RATE_LIMIT_POLICY_HEADER } from "@/lib/api/rate-limit-headers";
import { config } from "@/lib/config";

/** Origins whose browser code may call the API: our own, plus localhost outside production. */
export function originAllowed(origin: string): boolean {
  const c = config();
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const own = new Set([
    new URL(c.baseUrl).origin,
    ...(c.ALLOWED_ORIGINS?.split(",")
      .map((o) => o.trim())
      .filter(Boolean) ?? []),
  ]);
  if (own.has(url.origin)) return true;
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  return local && c.NODE_ENV !== "production";
}

export const EXPOSED_HEADERS = [
  "X-Request-Id",
  ...Object.values(RATE_LIMIT_HEADERS),
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  "Retry-After",
].join(", ");

export function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin || !originAllowed(origin)) return {};
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED_HEADERS, Vary: "Origin" };
}

/** The request headers every credentialed surface accepts from a browser: the two key headers and a body's type. */
const ALLOWED_HEADERS = ["Authorization", "X-API-Key", "Content-Type"];

/**
 * The answer to a CORS preflight from an allowed origin: the surface's methods (OPTIONS added)
 * and, beyond the key headers, any request headers of its own (MCP's `Accept`,
 * `Mcp-Protocol-Version`); browsers may cache it for ten minutes.
 */
export function preflightFor(
  methods: readonly string[],
  extraHeaders: readonly string[] = [],
): (origin: string) => Record<string, string> {
  const allowMethods = [...methods, "OPTIONS"].join(", ");
  const allowHeaders = [...ALLOWED_HEADERS, ...extraHeaders].join(", ");
  return (origin) => ({
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": allowMethods,
    "Access-Control-Allow-Headers": allowHeaders,
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  });
}

/** The /v1 preflight: GET only. */
export const preflightHeaders = preflightFor(["GET"]);
