import "server-only";
import type { Db } from "@/lib/db";
import type { KeyCache, ResolvedKey } from "@/lib/keys/key-cache";
import { hashKey, looksLikeKey, safeEqualHex } from "@/lib/keys/key-format";

/**
 * Resolves a presented key to its active key row, or null. Cached; revocation-aware.
 * `synced`: the revocation-epoch read (KeyCache.syncEpoch), when the caller started it earlier;
 * `hashed`: hashKey(presented), when the caller has it already.
 */
export async function verifyKey(
  { db, keys }: { db: () => Promise<Db>; keys: KeyCache },
  presented: string,
  synced?: Promise<void>,
  hashed?: string,
): Promise<ResolvedKey | null> {
  if (!looksLikeKey(presented)) return null;
  const hash = hashed ?? hashKey(presented);
  const hit = await keys.cached(hash, synced);
  if (hit) return hit.key;
  const prisma = await db();
  const row = await prisma.apiKey.findUnique({
    where: { hash },
    select: { id: true, userId: true, prefix: true, hash: true, status: true, limitMinute: true, limitDay: true },
  });
  const key =
    row && row.status === "active" && safeEqualHex(row.hash, hash)
      ? { id: row.id, userId: row.userId, prefix: row.prefix, limitMinute: row.limitMinute, limitDay: row.limitDay }
      : null;
  keys.remember(hash, key);
  return key;
}
