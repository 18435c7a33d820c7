import { NextResponse, type NextRequest } from "next/server";

// Security headers for the portal, its sign-in endpoints and the development outbox only.
// A fresh nonce per request: Next.js reads it from the request's CSP header and puts it on its
// own scripts, so no inline script without it runs. Styles allow inline attributes (charts set
// them); scripts never do. Referrer `same-origin`: confirmation URLs carry sign-in tokens, so
// no other site ever sees them, while same-site POSTs keep a real Origin header.
export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  // React needs eval for its development-only tooling; production never does.
  const devEval = process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : "";
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
  matcher: ["/portal", "/portal/:path*", "/dev/:path*", "/api/auth/:path*"],
};
