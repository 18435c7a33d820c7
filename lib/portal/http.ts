import "server-only";
import { NextResponse } from "next/server";

const NO_STORE = { "Cache-Control": "no-store" };

/** A 303 to a path on this site: relative, so it never depends on the Host header. */
export function seeOther(path: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { Location: path, ...NO_STORE } });
}

/** The portal's JSON error shape (the same shape as the API's, without docs and request id). */
export function portalError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): NextResponse {
  return NextResponse.json({ error: { code, message } }, { status, headers: { ...NO_STORE, ...headers } });
}

export function portalJson(body: unknown, status = 200): NextResponse {
  return NextResponse.json(body, { status, headers: NO_STORE });
}

export function wantsJson(headers: Headers): boolean {
  return (headers.get("accept") ?? "").includes("application/json");
}

/** Reads `field` from a JSON or form body; undefined when absent or unreadable. */
export async function bodyField(req: Request, field: string): Promise<unknown> {
  try {
    if ((req.headers.get("content-type") ?? "").includes("application/json")) {
      const body = (await req.json()) as Record<string, unknown> | null;
      return body && typeof body === "object" ? body[field] : undefined;
    }
    return (await req.formData()).get(field) ?? undefined;
  } catch {
    return undefined;
  }
}
