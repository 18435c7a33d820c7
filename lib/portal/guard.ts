import "server-only";
import type { NextRequest, NextResponse } from "next/server";
import { sessionCookieName } from "@/lib/auth/auth";
import { CSRF_HEADER, crossSiteReason, csrfTokenValid } from "@/lib/auth/csrf";
import { currentUser, type PortalUser } from "@/lib/auth/session";
import { portalError } from "@/lib/portal/http";

/**
 * Every state-changing portal request: same site (Sec-Fetch-Site / Origin), a live session, and
 * the session-bound CSRF token in `X-CSRF-Token`. The account comes from the session, never
 * from the request body.
 */
export async function guardMutation(req: NextRequest): Promise<{ user: PortalUser } | { response: NextResponse }> {
  const cross = crossSiteReason(req.headers);
  if (cross) return { response: portalError(403, "cross_site", "This action must come from the portal itself.") };
  const user = await currentUser();
  if (!user) return { response: portalError(401, "signed_out", "Your session has ended. Sign in again.") };
  if (!csrfTokenValid(req.cookies.get(sessionCookieName())?.value, req.headers.get(CSRF_HEADER))) {
    return { response: portalError(403, "csrf", "This page is out of date. Reload it and try again.") };
  }
  return { user };
}
