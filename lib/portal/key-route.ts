import "server-only";
import { NextResponse, type NextRequest } from "next/server";
import type { PortalUser } from "@/lib/auth/session";
import { isUnavailableError } from "@/lib/db";
import { isKeyError, type KeyError } from "@/lib/keys/manage-keys";
import { guardMutation } from "@/lib/portal/guard";
import { portalError, portalJson } from "@/lib/portal/http";
import { isKeyId } from "@/lib/portal/keys";

const STATUS: Record<KeyError["reason"], number> = { too_many_keys: 409, not_found: 404, not_active: 409 };

/**
 * A state-changing key route: guarded (same site, session, CSRF token), acting for the session's
 * account only. KeyError messages are written for the user and are returned as they are.
 */
export function keyRoute<P extends Record<string, string>>(
  action: (ctx: {
    user: PortalUser;
    req: NextRequest;
    params: P;
  }) => Promise<{ body: unknown; status?: number } | NextResponse>,
) {
  return async (req: NextRequest, context: { params: Promise<P> }): Promise<NextResponse> => {
    const guard = await guardMutation(req);
    if ("response" in guard) return guard.response;
    // Routes without dynamic segments get no params at all.
    const params = ((await context?.params) ?? {}) as P;
    if ("id" in params && !isKeyId(params.id)) return portalError(404, "not_found", "No such key on this account.");
    try {
      const result = await action({ user: guard.user, req, params });
      return result instanceof NextResponse ? result : portalJson(result.body, result.status ?? 200);
    } catch (error) {
      if (isKeyError(error)) return portalError(STATUS[error.reason], error.reason, error.message);
      if (isUnavailableError(error))
        return portalError(503, "unavailable", "The service is temporarily unavailable. Try again in a moment.");
      console.error(`[portal] key action failed: ${(error as Error).message.split("\n")[0]}`);
      return portalError(500, "internal_error", "Something went wrong on our side. Try again in a moment.");
    }
  };
}
