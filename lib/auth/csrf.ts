import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { authSecret } from "@/lib/auth/secret";
import { config } from "@/lib/config";

export const CSRF_HEADER = "x-csrf-token";
export const CSRF_FIELD = "csrf";

/** Session-bound CSRF token: HMAC of the session cookie, so it needs no storage and dies with the session. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac("sha256", authSecret()).update(`portal-csrf\0${sessionToken}`).digest("base64url");
}

export function csrfTokenValid(sessionToken: string | undefined, presented: string | null | undefined): boolean {
  if (!sessionToken || !presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Why a state-changing request looks cross-site, or null when it does not. Browsers send
 * `Sec-Fetch-Site` (which pages cannot forge) and `Origin` on every POST; `Origin` may be
 * "null" under a strict referrer policy, so then Sec-Fetch-Site decides. A request with neither
 * is not a browser acting for a signed-in user (and still needs the CSRF token wherever a
 * session is involved).
 */
export function crossSiteReason(headers: Headers): string | null {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin") return `Sec-Fetch-Site is ${site}`;
  const origin = headers.get("origin");
  if (!origin) return null;
  if (origin === "null") return site === "same-origin" ? null : "Origin is null";
  let originHost: string;
  try {
    const u = new URL(origin);
    if (u.origin === new URL(config().baseUrl).origin) return null;
    originHost = u.host;
  } catch {
    return "Origin is not a URL";
  }
  const host = (config().TRUST_PROXY && headers.get("x-forwarded-host")?.split(",")[0]?.trim()) || headers.get("host");
  return originHost === host ? null : `Origin ${origin} is not this site`;
}
