import { config } from "@/lib/config";
import type { RequestHeaders } from "@/lib/api/result";

/**
 * The client address the throttle counts. scripts/server.mjs writes the socket's peer address
 * into `x-pmb-peer` (overwriting anything a client sent); Next.js itself only fills
 * `x-forwarded-for` when the client did not, so that header is trusted only with TRUST_PROXY,
 * and then its first entry is the client.
 */
export function clientAddress(headers: RequestHeaders): string {
  if (config().TRUST_PROXY) {
    const first = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return headers.get("x-pmb-peer") || headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}
