import { rotateKey } from "@/lib/keys/manage-keys";
import { keyRoute } from "@/lib/portal/key-route";
import { toPortalKey } from "@/lib/portal/keys";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

// Rotate: the old secret stops working at once; the new one is in this response only.
export const POST = keyRoute<{ id: string }>(async ({ user, params }) => {
  const { key, summary } = await rotateKey(await root().db(), root().keys, params.id, user.id);
  return { body: { key, summary: toPortalKey(summary) } };
});
