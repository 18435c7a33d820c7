import { confirmRevocation } from "@/lib/keys/instances";
import { rotateKey } from "@/lib/keys/manage-keys";
import { keyRoute } from "@/lib/portal/key-route";
import { revocationAnswer, toPortalKey } from "@/lib/portal/keys";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Rotate: the old secret stops working at once; the new one is in this response only. As for a
// revocation, 200 only once every live instance refuses the old secret; otherwise 202 with a notice.
export const POST = keyRoute<{ id: string }>(async ({ user, params }) => {
  const r = root();
  const { key, summary, sharedCache } = await rotateKey(await r.db(), r.keys, params.id, user.id);
  const reach = await confirmRevocation(r, params.id, sharedCache);
  return revocationAnswer({ key, summary: toPortalKey(summary) }, reach, "The old secret is retired");
});
