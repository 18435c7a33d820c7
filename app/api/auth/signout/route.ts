import type { NextRequest } from "next/server";
import { sessionCookieName, signOut } from "@/lib/auth/auth";
import { CSRF_FIELD, CSRF_HEADER, crossSiteReason, csrfTokenValid } from "@/lib/auth/csrf";
import { bodyField, portalError, seeOther } from "@/lib/portal/http";

export const dynamic = "force-dynamic";

// Deletes the session row (database sessions end at once) and clears the cookie.
export async function POST(req: NextRequest) {
  const sessionToken = req.cookies.get(sessionCookieName())?.value;
  if (!sessionToken) return seeOther("/portal/signin");
  const presented = req.headers.get(CSRF_HEADER) ?? (await bodyField(req, CSRF_FIELD));
  if (crossSiteReason(req.headers) || !csrfTokenValid(sessionToken, typeof presented === "string" ? presented : null)) {
    return portalError(403, "cross_site", "Sign out from the portal's own page.");
  }
  await signOut({ redirect: false });
  return seeOther("/portal/signin?signedOut=1");
}
