import "server-only";
import type { Db } from "@/lib/db";

export interface KeyRef {
  id: string;
  prefix: string;
  lastFour: string;
}

/** The key that replaced `keyId` at a rotation (same account), if any. */
export async function replacementOf(prisma: Db, keyId: string, userId: string): Promise<KeyRef | null> {
  return prisma.apiKey.findFirst({
    where: { replacesId: keyId, userId },
    select: { id: true, prefix: true, lastFour: true },
  });
}

/** The key `keyId` replaced (same account), if any. */
export async function predecessorOf(prisma: Db, replacesId: string | null, userId: string): Promise<KeyRef | null> {
  if (!replacesId) return null;
  return prisma.apiKey.findFirst({
    where: { id: replacesId, userId },
    select: { id: true, prefix: true, lastFour: true },
  });
}
