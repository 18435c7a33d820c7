import "server-only";
import { keyLimits } from "@/lib/ratelimit/limiter";
import { KEY_SUMMARY_SELECT, type KeySummary } from "@/lib/keys/manage-keys";
import { root } from "@/lib/root";
import { config } from "@/lib/config";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Key ids are UUIDs; anything else cannot name a key (and would make PostgreSQL fail the cast). */
export function isKeyId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** A key as the portal's browser code sees it: no hash, no secret, dates as ISO strings. */
export interface PortalKey {
  id: string;
  name: string;
  prefix: string;
  lastFour: string;
  status: "active" | "rotated" | "revoked";
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  limitMinute: number;
  limitDay: number;
  replacesId: string | null;
}

export function toPortalKey(key: KeySummary): PortalKey {
  const limits = keyLimits(key, config());
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    lastFour: key.lastFour,
    status: key.status,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    limitMinute: limits.minute,
    limitDay: limits.day,
    replacesId: key.replacesId,
  };
}

/** One key of this account, or null: another account's key id is indistinguishable from none. */
export async function ownedKey(keyId: unknown, userId: string): Promise<PortalKey | null> {
  if (!isKeyId(keyId)) return null;
  const prisma = await root().db();
  const row = await prisma.apiKey.findFirst({
    where: { id: keyId, userId },
    select: KEY_SUMMARY_SELECT,
  });
  return row ? toPortalKey(row) : null;
}

export interface QuotaNow {
  limitMinute: number;
  remainingMinute: number;
  resetMinute: number;
  limitDay: number;
  remainingDay: number;
  resetDay: number;
}

/** The quota a request now would see, read from the live windows without spending anything. */
export async function quotaNow(key: PortalKey): Promise<QuotaNow> {
  const { limiter, clock } = root();
  const d = await limiter.store().peek(key.id, { minute: key.limitMinute, day: key.limitDay }, clock.now());
  return {
    limitMinute: d.limitMinute,
    remainingMinute: d.remainingMinute,
    resetMinute: d.resetMinute,
    limitDay: d.limitDay,
    remainingDay: d.remainingDay,
    resetDay: d.resetDay,
  };
}
