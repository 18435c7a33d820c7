import "server-only";
import { randomUUID } from "node:crypto";
import { downloadsHandler } from "@/lib/api/downloads";
import { errorBody } from "@/lib/api/errors";
import { FRONT_REQUEST_ID } from "@/lib/api/responses";
import {
  admitAddress,
  KeyedRefusal,
  rateLimitHeaders,
  spendWindows,
  toApiError,
  type Services,
} from "@/lib/api/pipeline";
import type { Db } from "@/lib/db";
import type { PortalUser } from "@/lib/auth/session";
import type { ResolvedKey } from "@/lib/keys/api-key";
import { listKeys } from "@/lib/keys/manage-keys";
import type { LimitDecision } from "@/lib/ratelimit";

/** The endpoint name downloads are metered under, as through the key pipeline. */
const ENDPOINT = "/downloads";

/**
 * The key a signed-in user's bundle download is counted on: the one named by `?key=` when it is
 * an active key of theirs, else their oldest active key. Null when they hold no active key.
 */
export async function sessionKey(prisma: Db, user: PortalUser, wanted: string | null): Promise<ResolvedKey | null> {
  const active = (await listKeys(prisma, user.id)).filter((k) => k.status === "active");
  const pick = active.find((k) => k.id === wanted) ?? active[active.length - 1];
  return pick
    ? { id: pick.id, userId: user.id, prefix: pick.prefix, limitMinute: pick.limitMinute, limitDay: pick.limitDay }
    : null;
}

/**
 * /downloads for a portal session: the session stands in for the key. The same steps as the
 * keyed pipeline after key resolution: the address throttle, one request spent from both of the
 * key's windows, the same handler, the rate-limit headers, and metering on that key (so the
 * download appears in the key's usage and counts against its quota).
 */
export async function sessionDownload(
  services: Services,
  request: Request,
  key: ResolvedKey,
  path: string,
): Promise<Response> {
  const requestId = request.headers.get(FRONT_REQUEST_ID) || randomUUID();
  const base: Record<string, string> = { "X-Request-Id": requestId, "Cache-Control": "no-store" };
  let decision: LimitDecision | null = null;
  let status = 500;
  let errorCode: string | null = "internal_error";
  try {
    await admitAddress(services, request.headers);
    decision = await spendWindows(services, key);
    const payload = await downloadsHandler({
      services,
      requestId,
      key,
      decision,
      query: new URL(request.url).searchParams,
      params: { path },
    });
    status = 200;
    errorCode = null;
    if ("raw" in payload) {
      const body =
        typeof payload.raw.body === "string"
          ? payload.raw.body
          : new Blob([payload.raw.body as Uint8Array<ArrayBuffer>]);
      return new Response(body, {
        status,
        headers: {
          ...base,
          ...rateLimitHeaders(decision, services.clock.now()),
          "Content-Type": payload.raw.contentType,
          ...payload.raw.headers,
        },
      });
    }
    return Response.json(payload.data, {
      status,
      headers: { ...base, ...rateLimitHeaders(decision, services.clock.now()) },
    });
  } catch (caught) {
    let error: unknown = caught;
    if (caught instanceof KeyedRefusal) {
      decision = caught.decision;
      error = caught.error;
    }
    const apiError = toApiError(error, requestId, "portal-downloads", services.database);
    status = apiError.status;
    errorCode = apiError.code;
    const headers = {
      ...base,
      ...(decision && apiError.code !== "ip_rate_limited" ? rateLimitHeaders(decision, services.clock.now()) : {}),
      ...apiError.headers,
    };
    return Response.json(errorBody(apiError.code, apiError.message, requestId, services.config.baseUrl), {
      status,
      headers,
    });
  } finally {
    if (decision) {
      const url = new URL(request.url);
      services.meter.record(key.id, ENDPOINT, status, services.clock.now(), {
        requestId,
        method: request.method,
        path: url.pathname + url.search,
        errorCode,
      });
    }
    services.journals.flush(); // before the answer leaves (lib/plumbing/journal.ts)
  }
}

/** Browsers send Sec-Fetch-Site; a download must come from this site or be typed by the user. */
export function sameSiteNavigation(headers: Headers): boolean {
  const site = headers.get("sec-fetch-site");
  return site === null || site === "same-origin" || site === "none";
}
