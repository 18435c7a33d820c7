import { NextRequest } from "next/server";
import { AUTH_BASE_PATH, EMAIL_PROVIDER_ID, handlers } from "@/lib/auth/auth";
import { crossSiteReason } from "@/lib/auth/csrf";
import { normalizeEmail } from "@/lib/auth/email-address";
import { linkState } from "@/lib/auth/magic-link";
import { authReadiness } from "@/lib/auth/secret";
import { seeOther } from "@/lib/portal/http";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// The only place a magic link is spent: the confirmation page's button posts here, and this
// runs the Auth.js e-mail callback in process (it is not exposed over HTTP at all). The Origin
// check stops another site from signing a visitor into an account of its choosing.
export async function POST(req: NextRequest) {
  if (crossSiteReason(req.headers)) return seeOther("/portal/signin?error=cross_site");
  if (!authReadiness().ok) return seeOther("/portal/signin");
  const form = await req.formData().catch(() => null);
  const email = form?.get("email");
  const token = form?.get("token");
  const state = await linkState(await root().db(), email, token);
  if (state !== "valid" || typeof email !== "string" || typeof token !== "string")
    return seeOther(`/portal/signin?link=${state === "valid" ? "used" : state}`);

  const callback = new URL(`${AUTH_BASE_PATH}/callback/${EMAIL_PROVIDER_ID}`, req.nextUrl.origin);
  callback.search = new URLSearchParams({ token, email: normalizeEmail(email), callbackUrl: "/portal" }).toString();
  const res = await handlers.GET(new NextRequest(callback, { headers: { cookie: req.headers.get("cookie") ?? "" } }));

  const location = res.headers.get("location");
  const target = location ? new URL(location, req.nextUrl.origin) : null;
  const signedIn = target !== null && !target.searchParams.has("error") && target.pathname.startsWith("/portal");
  // Spent between the check above and the callback (a double click): report it as used.
  const out = seeOther(signedIn ? `${target.pathname}${target.search}` : "/portal/signin?link=used");
  for (const cookie of res.headers.getSetCookie()) out.headers.append("Set-Cookie", cookie);
  return out;
}
