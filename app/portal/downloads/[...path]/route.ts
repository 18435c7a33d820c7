import { currentUser } from "@/lib/auth/session";
import { portalError, seeOther } from "@/lib/portal/http";
import { sameSiteNavigation, sessionDownload, sessionKey } from "@/lib/portal/session-downloads";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

/** GET /portal/downloads/{YYYY-MM}/{file}.csv (or a manifest) with the portal session. */
export async function GET(request: Request, context: { params: Promise<{ path: string[] }> }): Promise<Response> {
  if (!sameSiteNavigation(request.headers))
    return portalError(403, "cross_site", "Download bundles from the portal itself.");
  const user = await currentUser();
  if (!user) return seeOther("/portal/signin");
  const services = root();
  const key = await sessionKey(await services.db(), user, new URL(request.url).searchParams.get("key"));
  if (!key)
    return portalError(
      403,
      "no_active_key",
      "Downloads are counted on one of your keys: create a key in the portal first.",
    );
  const { path } = await context.params;
  return sessionDownload(services, request, key, path.join("/"));
}
