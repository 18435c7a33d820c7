import type { NextRequest } from "next/server";
import { clientAddress } from "@/lib/api/pipeline";
import { crossSiteReason } from "@/lib/auth/csrf";
import { requestMagicLink } from "@/lib/auth/magic-link";
import { bodyField, portalError, portalJson, seeOther, wantsJson } from "@/lib/portal/http";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Sign-in and registration are one step: POST a work e-mail, get a magic link by mail.
// JSON in/out for the portal's form script; a plain form post gets a 303 back to the page.
export async function POST(req: NextRequest) {
  const json = wantsJson(req.headers);
  if (crossSiteReason(req.headers)) {
    const message = "Request sign-in links from the portal's own sign-in page.";
    return json ? portalError(403, "cross_site", message) : seeOther("/portal/signin?error=cross_site");
  }
  const email = await bodyField(req, "email");
  const result = await requestMagicLink(root(), email, clientAddress(req.headers));
  if (json) {
    if (result.ok) return portalJson({ ok: true, email: result.email });
    return portalError(
      result.status,
      result.code,
      result.message,
      result.retryAfter ? { "Retry-After": String(result.retryAfter) } : {},
    );
  }
  const params = new URLSearchParams(
    result.ok ? { sent: result.email } : { error: result.code, ...(typeof email === "string" ? { email } : {}) },
  );
  return seeOther(`/portal/signin?${params}`);
}
