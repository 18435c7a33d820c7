import "server-only";
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import type { KeyCache } from "@/lib/keys/api-key";
import { generateKey } from "@/lib/keys/api-key";
import { hasErrorKind } from "@/lib/plumbing/error-kind";

export const MAX_ACTIVE_KEYS = 3;

export class KeyError extends Error {
  readonly kind = "KeyError" as const;
  constructor(
    readonly reason: "too_many_keys" | "not_found" | "not_active",
    message: string,
  ) {
    super(message);
    this.name = "KeyError";
  }
}

/** A KeyError from any copy of this module (the build bundles it in several chunks). */
export const isKeyError = (value: unknown): value is KeyError => hasErrorKind(value, "KeyError");

/** A key as its owner sees it: never the hash, never the secret. */
export interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  lastFour: string;
  status: "active" | "rotated" | "revoked";
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  limitMinute: number | null;
  limitDay: number | null;
  replacesId: string | null;
}

/** The columns an owner may see of a key; never the hash. */
export const KEY_SUMMARY_SELECT = {
  id: true,
  name: true,
  prefix: true,
  lastFour: true,
  status: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  limitMinute: true,
  limitDay: true,
  replacesId: true,
} as const;

export interface MintOptions {
  name?: string;
  limitMinute?: number | null;
  limitDay?: number | null;
}

/** Serializes key changes of one account, so "at most three active" holds under concurrency. */
async function lockAccount(tx: Prisma.TransactionClient, userId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`keys:${userId}`}))`;
}

/** Mints a key; the secret is in the result and nowhere else, ever. */
export async function mintKey(
  prisma: Db,
  userId: string,
  options: MintOptions = {},
): Promise<{ key: string; summary: KeySummary }> {
  const fresh = generateKey();
  const row = await prisma.$transaction(async (tx) => {
    await lockAccount(tx, userId);
    const active = await tx.apiKey.count({ where: { userId, status: "active" } });
    if (active >= MAX_ACTIVE_KEYS) {
      throw new KeyError(
        "too_many_keys",
        `This account already has ${MAX_ACTIVE_KEYS} active keys, the maximum. Revoke one you no longer use, or rotate a lost one, then mint again.`,
      );
    }
    return tx.apiKey.create({
      data: {
        userId,
        name: options.name?.trim() || "Default key",
        hash: fresh.hash,
        prefix: fresh.prefix,
        lastFour: fresh.lastFour,
        limitMinute: options.limitMinute ?? null,
        limitDay: options.limitDay ?? null,
      },
      select: KEY_SUMMARY_SELECT,
    });
  });
  return { key: fresh.key, summary: row };
}

/** Retires a key and issues its replacement in one transaction; the old secret dies at once. */
export async function rotateKey(
  prisma: Db,
  keys: KeyCache,
  keyId: string,
  userId: string | null,
): Promise<{ key: string; summary: KeySummary; sharedCache: "told" | "deferred" }> {
  const fresh = generateKey();
  const row = await prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({
      where: { id: keyId, ...(userId ? { userId } : {}) },
      select: { ...KEY_SUMMARY_SELECT, userId: true },
    });
    if (!old) throw new KeyError("not_found", "No such key on this account.");
    await lockAccount(tx, old.userId);
    const updated = await tx.apiKey.updateMany({
      where: { id: keyId, status: "active" },
      data: { status: "rotated", revokedAt: new Date() },
    });
    if (updated.count !== 1) throw new KeyError("not_active", "Only an active key can be rotated.");
    return tx.apiKey.create({
      data: {
        userId: old.userId,
        name: old.name,
        hash: fresh.hash,
        prefix: fresh.prefix,
        lastFour: fresh.lastFour,
        limitMinute: old.limitMinute,
        limitDay: old.limitDay,
        replacesId: old.id,
      },
      select: KEY_SUMMARY_SELECT,
    });
  });
  const sharedCache = await keys.invalidate();
  return { key: fresh.key, summary: row, sharedCache };
}

/**
 * Revokes a key; every later call with it is refused. `sharedCache`: whether the other instances
 * were told through Redis now, or learn of it by themselves shortly (KeyCache.invalidate).
 */
export async function revokeKey(
  prisma: Db,
  keys: KeyCache,
  keyId: string,
  userId: string | null,
): Promise<KeySummary & { sharedCache: "told" | "deferred" }> {
  const row = await prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({
      where: { id: keyId, ...(userId ? { userId } : {}) },
      select: { id: true },
    });
    if (!old) throw new KeyError("not_found", "No such key on this account.");
    const updated = await tx.apiKey.updateMany({
      where: { id: keyId, status: "active" },
      data: { status: "revoked", revokedAt: new Date() },
    });
    if (updated.count !== 1) throw new KeyError("not_active", "This key is not active.");
    return tx.apiKey.findUniqueOrThrow({ where: { id: keyId }, select: KEY_SUMMARY_SELECT });
  });
  return { ...row, sharedCache: await keys.invalidate() };
}

export async function listKeys(prisma: Db, userId: string): Promise<KeySummary[]> {
  return prisma.apiKey.findMany({ where: { userId }, select: KEY_SUMMARY_SELECT, orderBy: { createdAt: "desc" } });
}

/** Finds a key's id from the key itself (operator CLI). */
export async function keyIdFor(prisma: Db, hash: string): Promise<string | null> {
  const row = await prisma.apiKey.findUnique({ where: { hash }, select: { id: true } });
  return row?.id ?? null;
}

export async function ensureUser(prisma: Db, email: string): Promise<string> {
  const user = await prisma.user.upsert({
    where: { email: email.toLowerCase() },
    update: {},
    create: { email: email.toLowerCase() },
    select: { id: true },
  });
  return user.id;
}

export async function findUserId(prisma: Db, email: string): Promise<string | null> {
  const user = await prisma.user.findUnique({ where: { email: email.toLowerCase() }, select: { id: true } });
  return user?.id ?? null;
}
