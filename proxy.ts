import { NextResponse, type NextRequest } from "next/server";
import { config as appConfig } from "@/lib/config";
import { PAGES_WITHOUT_DATABASE } from "@/lib/db/outage";
import { databaseDown } from "@/lib/root-slot";

/** Paths whose headers below apply (the rest of the matcher is there for the outage page only). */
const SECURED = /^\/(portal(\/|$)|dev\/|api\/auth\/)/;

/**
 * While this process knows the database to be down (the root's outage record, read through
 * lib/root-slot.ts so this bundle loads neither the database client nor the root), a page answers 503 with
 * Retry-After and says the service is temporarily unavailable, instead of rendering into a 500.
 * Next's own error page cannot carry a status of our choosing; the proxy can.
 */
function unavailablePage(): NextResponse {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Temporarily unavailable</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><h1>Temporarily unavailable</h1><p>The service cannot reach its database right now. Nothing is lost: please try again in a few seconds.</p><p><a href="/healthz">Service health</a></p></body></html>`;
  return new NextResponse(html, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Retry-After": "5", "Cache-Control": "no-store" },
  });
}

// Security headers for the portal, its sign-in endpoints and the development outbox only.
// A fresh nonce per request: Next.js reads it from the request's CSP header and puts it on its
// own scripts, so no inline script without it runs. Styles allow inline attributes (charts set
// them); scripts never do. Referrer `same-origin`: confirmation URLs carry sign-in tokens, so
// no other site ever sees them, while same-site POSTs keep a real Origin header.
export function proxy(request: NextRequest) {
  if (databaseDown() && !PAGES_WITHOUT_DATABASE.test(request.nextUrl.pathname)) return unavailablePage();
  if (!SECURED.test(request.nextUrl.pathname)) return NextResponse.next();
  const nonce = btoa(crypto.randomUUID());
  // React needs eval for its development-only tooling; production never does.
  const devEval = appConfig().NODE_ENV === "development" ? " 'unsafe-eval'" : "";
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${devEval}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", csp);
  requestHeaders.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  response.headers.set("Referrer-Policy", "same-origin");
  response.headers.set("X-Frame-Options", "DENY");
  response.headers.set("Cross-Origin-Opener-Policy", "same-origin");
  return response;
}

export const config = {
  // Every page, and the portal's and sign-in's endpoints; not Next's assets, /v1, MCP, downloads,
  // /healthz or the JSON documents, which answer for themselves.
  matcher: [
    "/((?!_next/|v1(?:/|$)|mcp(?:/|$)|downloads(?:/|$)|healthz|status\\.json|openapi\\.json|icon\\.svg|opengraph-image|favicon).*)",
  ],
};
