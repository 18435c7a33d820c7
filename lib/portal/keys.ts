import "server-only";
import { keyLimits } from "@/lib/ratelimit/limiter";
import { KEY_SUMMARY_SELECT, type KeySummary } from "@/lib/keys/manage-keys";
import type { Db } from "@/lib/db";
import type { Root } from "@/lib/root";
import { config } from "@/lib/config";
import type { RevocationConfirmation } from "@/lib/keys/instances";

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
export async function ownedKey(prisma: Db, keyId: unknown, userId: string): Promise<PortalKey | null> {
  if (!isKeyId(keyId)) return null;
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
export async function quotaNow({ limiter, clock }: Pick<Root, "limiter" | "clock">, key: PortalKey): Promise<QuotaNow> {
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

/**
 * A revoke or rotate route's answer once the revocation is made: 200 when every live instance
 * holds it (confirmRevocation, the rule `npm run keys -- revoke` follows), else 202 with a notice
 * that says plainly what is done and what is not (`done`: "The key is revoked").
 */
export function revocationAnswer(
  body: Record<string, unknown>,
  reach: RevocationConfirmation,
  done: string,
): { body: Record<string, unknown>; status: number } {
  if (reach.confirmed) return { body: { ...body, confirmed: true }, status: 200 };
  const names = reach.missing.map((i) => i.id.slice(0, 8));
  const which = names.length === 1 ? `instance ${names[0]}` : `instances ${names.join(", ")}`;
  const notice =
    `${done} in the database, but not yet confirmed on ${which} of the service ` +
    `(no confirmation within ${Math.round(reach.waitedMs / 1000)} s). ` +
    `It takes effect there as soon as ${names.length === 1 ? "that instance reads" : "those instances read"} the database again; ` +
    `until then a request answered there may still succeed. Reload this page in a minute to check, or contact support if this persists.`;
  return { body: { ...body, confirmed: false, unconfirmed: names, notice }, status: 202 };
}
