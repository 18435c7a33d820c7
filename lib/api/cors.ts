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
  const own = new Set([new URL(c.baseUrl).origin, ...(c.ALLOWED_ORIGINS?.split(",").map((o) => o.trim()).filter(Boolean) ?? [])]);
  if (own.has(url.origin)) return true;
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  return local && c.NODE_ENV !== "production" && !c.PMB_STRICT_CORS;
}

export const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Limit-Day",
  "X-RateLimit-Remaining-Day",
  "X-RateLimit-Reset",
  "X-RateLimit-Reset-Day",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
].join(", ");

export function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin || !originAllowed(origin)) return {};
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED_HEADERS, Vary: "Origin" };
}

export function preflightHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, X-API-Key, Content-Type",
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  };
}
