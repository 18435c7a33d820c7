// The production server's direct dispatcher (scripts/direct-routes.mjs) calls /v1 route
// handlers with a standard Request it marks with this symbol. For such a request the pipeline
// hands its status, headers and body parts over as they are, on a Response without a body, and
// the dispatcher writes them: no body stream to build and read back, no Headers to fill and
// iterate. Any other caller (Next's router, tests, MCP) gets an ordinary Response. The symbol
// is in the global registry because the dispatcher is not part of the bundle.
export const DIRECT_HANDOFF = Symbol.for("pmb.direct-handoff");

/** What the dispatcher writes: the status, the headers in order, the body as text or reused bytes. */
export interface Handoff {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array[];
}

/** True for a request from the direct dispatcher. */
export function wantsHandoff(request: Request): boolean {
  return (request as unknown as Record<symbol, unknown>)[DIRECT_HANDOFF] === true;
}

/** A Response that only the direct dispatcher reads: the handoff rides on it, its own body is empty. */
export function handoffResponse(handoff: Handoff): Response {
  const response = new Response(null, { status: handoff.status });
  Object.defineProperty(response, DIRECT_HANDOFF, { value: handoff });
  return response;
}
