import "server-only";
import { root } from "@/lib/root";

export interface KeyRef {
  id: string;
  prefix: string;
  lastFour: string;
}

/** The key that replaced `keyId` at a rotation (same account), if any. */
export async function replacementOf(keyId: string, userId: string): Promise<KeyRef | null> {
  const prisma = await root().db();
  return prisma.apiKey.findFirst({
    where: { replacesId: keyId, userId },
    select: { id: true, prefix: true, lastFour: true },
  });
}

/** The key `keyId` replaced (same account), if any. */
export async function predecessorOf(replacesId: string | null, userId: string): Promise<KeyRef | null> {
  if (!replacesId) return null;
  const prisma = await root().db();
  return prisma.apiKey.findFirst({
    where: { id: replacesId, userId },
    select: { id: true, prefix: true, lastFour: true },
  });
}
