import type { NextRequest } from "next/server";
import { guardMutation } from "@/lib/portal/guard";
import { portalError, portalJson } from "@/lib/portal/http";
import { LicenseRequestLimit, licenseRequestInput, submitLicenseRequest } from "@/lib/portal/license-requests";
import { root } from "@/lib/root";

/** POST a commercial licence request (JSON), from the portal page with the session's CSRF token. */
export async function POST(req: NextRequest) {
  const guard = await guardMutation(req);
  if ("response" in guard) return guard.response;
  const body: unknown = await req.json().catch(() => null);
  const parsed = licenseRequestInput.safeParse(body ?? {});
  if (!parsed.success)
    return portalError(400, "invalid_request", parsed.error.issues[0]?.message ?? "Check the form and try again.");
  try {
    const result = await submitLicenseRequest(root(), guard.user, parsed.data);
    return portalJson({ reference: result.reference, acknowledged: result.acknowledged }, 201);
  } catch (error) {
    if (error instanceof LicenseRequestLimit) return portalError(429, "too_many_requests", error.message);
    console.error(`[portal] licence request failed: ${(error as Error).message.split("\n")[0]}`);
    return portalError(500, "internal_error", "Something went wrong on our side. Try again in a moment.");
  }
}
