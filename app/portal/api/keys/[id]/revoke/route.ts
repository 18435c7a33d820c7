import { confirmRevocation } from "@/lib/keys/instances";
import { revokeKey } from "@/lib/keys/manage-keys";
import { keyRoute } from "@/lib/portal/key-route";
import { revocationAnswer, toPortalKey } from "@/lib/portal/keys";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Revoke: every later request with the key gets invalid_api_key. Reported done (200) only once
// every live instance holds it; otherwise 202 with a notice naming those that did not confirm.
export const POST = keyRoute<{ id: string }>(async ({ user, params }) => {
  const r = root();
  const summary = await revokeKey(await r.db(), r.keys, params.id, user.id);
  const reach = await confirmRevocation(r, summary.id, summary.sharedCache);
  return revocationAnswer({ summary: toPortalKey(summary) }, reach, "The key is revoked");
});
