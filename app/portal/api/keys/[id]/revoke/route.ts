import { revokeKey } from "@/lib/keys/manage-keys";
import { keyRoute } from "@/lib/portal/key-route";
import { toPortalKey } from "@/lib/portal/keys";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Revoke: every later request with the key gets invalid_api_key.
export const POST = keyRoute<{ id: string }>(async ({ user, params }) => {
  const summary = await revokeKey(await root().db(), root().keys, params.id, user.id);
  return { body: { summary: toPortalKey(summary) } };
});
