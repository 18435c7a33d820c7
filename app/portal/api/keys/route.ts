import { mintKey } from "@/lib/keys/manage-keys";
import { bodyField, portalError } from "@/lib/portal/http";
import { keyRoute } from "@/lib/portal/key-route";
import { toPortalKey } from "@/lib/portal/keys";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

const MAX_NAME = 60;

// Mint: the secret is in this response and nowhere else, ever.
export const POST = keyRoute(async ({ user, req }) => {
  const raw = await bodyField(req, "name");
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name.length > MAX_NAME) return portalError(400, "invalid_name", `A key name has at most ${MAX_NAME} characters.`);
  const { key, summary } = await mintKey(await root().db(), user.id, { name });
  return { status: 201, body: { key, summary: toPortalKey(summary) } };
});
