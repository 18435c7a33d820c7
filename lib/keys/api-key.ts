import "server-only";
import crypto, { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type Redis from "ioredis";
import type { Db } from "@/lib/db";
import { unavailableDependency } from "@/lib/db/unavailable";
import { systemClock, type Clock } from "@/lib/time-format";

// An API key: its format (minted from 32 random bytes, stored only as a SHA-256 hash), the
// cache of the keys this process resolved with the revocation epoch, and verifyKey, which turns
// a presented key into its active key row.

/** Fixed prefix of every key; the secret follows it. */
export const KEY_PREFIX = "svc_live_";
/** 32 random bytes as base62: ceil(256 / log2(62)) = 43 digits, left-padded. */
export const SECRET_BYTES = 32;
export const SECRET_LENGTH = 43;
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Secret characters shown in the display prefix (`key.prefix`) and kept as `lastFour`. */
const VISIBLE_CHARS = 4;

const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export interface GeneratedKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** SHA-256 hex of the full key: the only stored form of the secret. */
  hash: string;
  /** `svc_live_` + first 4 secret characters: identifies the key in the portal and GET /v1. */
  prefix: string;
  /** Last 4 characters of the key, for display. */
  lastFour: string;
}

/** Big-endian bytes as a fixed-width base62 big integer (43 digits for 32 bytes). */
export function encodeBase62(bytes: Uint8Array, width = SECRET_LENGTH): string {
  let n = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let digits = "";
  while (n > 0n) {
    digits = BASE62_ALPHABET.charAt(Number(n % 62n)) + digits;
    n /= 62n;
  }
  if (digits.length > width) throw new RangeError(`base62: value needs ${digits.length} digits > ${width}`);
  return digits.padStart(width, BASE62_ALPHABET.charAt(0));
}

/** SHA-256 hex of the whole key (prefix included). */
export function hashKey(key: string): string {
  // The one-shot digest (Node 20.12+) spares a Hash object per request on the keyed path.
  return oneShot ? oneShot("sha256", key, "hex") : createHash("sha256").update(key, "utf8").digest("hex");
}

const oneShot = (crypto as unknown as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** Mints a key from 32 CSPRNG bytes; `random` is injectable for deterministic tests only. */
export function generateKey(random: (size: number) => Uint8Array = randomBytes): GeneratedKey {
  const bytes = random(SECRET_BYTES);
  if (bytes.length !== SECRET_BYTES) throw new RangeError(`generateKey: need ${SECRET_BYTES} random bytes`);
  const secret = encodeBase62(bytes);
  const key = KEY_PREFIX + secret;
  return {
    key,
    hash: hashKey(key),
    prefix: KEY_PREFIX + secret.slice(0, VISIBLE_CHARS),
    lastFour: key.slice(-VISIBLE_CHARS),
  };
}

/** Cheap shape check before hashing: the prefix and exactly 43 base62 characters. */
export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** Constant-time equality of two hex digests; false for different lengths, empty or non-hex input. */
export function safeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length || !HEX.test(a) || !HEX.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** What a verified key resolves to; never the hash or the secret. */
export interface ResolvedKey {
  id: string;
  userId: string;
  prefix: string;
  limitMinute: number | null;
  limitDay: number | null;
}

const POSITIVE_TTL_MS = 5 * 60_000;
const NEGATIVE_TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;

export interface Entry {
  key: ResolvedKey | null;
  expires: number;
}

/** The keys this root has resolved, and the revocation epoch it last saw. */
export interface KeyCache {
  /** The active key a presented key resolves to, or null (verifyKey, with this cache and its database). */
  verify(presented: string): Promise<ResolvedKey | null>;
  /**
   * Revocation holds on the very next request on every instance: a revoke or rotate sets a shared
   * epoch in Redis to a value never used before (a random token, not a counter: a Redis restarted
   * empty could count up to a value an instance already saw), and each keyed request reads it (in
   * the same pipelined round trip as the rate-limit script: ioredis auto-pipelining) and drops the
   * whole cache when it moved. A Redis that lost its data answers "unset", which differs from any
   * token an instance saw; and an instance that lost its connection drops its cache when it
   * reconnects, so a revocation made while Redis was unreachable holds too. Without Redis there is
   * one instance, and the revoking call clears this cache directly.
   */
  syncEpoch(): Promise<void>;
  /** Starts reading the shared epoch (null without Redis, where there is none); pass the value to applyEpoch. */
  readEpoch(): Promise<string | null> | null;
  /** Takes an epoch value read from Redis (null: unset); drops the cache when it moved. */
  applyEpoch(value: string | null): void;
  /** The cached entry for a key hash; `synced` is an epoch read already under way for this request. */
  cached(hash: string, synced?: Promise<void>): Promise<Entry | undefined>;
  remember(hash: string, key: ResolvedKey | null): void;
  /** Drops every cached key of this process (a revocation read from the database, lib/keys/instances.ts). */
  forget(): void;
  /**
   * Called after a key stopped working (the change is already in the database): forget it here,
   * and tell every other instance through Redis. "deferred" when Redis cannot be told now: each
   * running instance then learns of it by itself, when it reconnects to Redis (it drops its cache)
   * and from the database within REVOCATION_WATCH_MS (lib/keys/instances.ts).
   */
  invalidate(): Promise<"told" | "deferred">;
}

/** What the key cache needs of Redis: the ready connection, the epoch's key, reconnections. */
export interface EpochStore {
  ready: () => Promise<Redis>;
  epochKey: string;
  onReconnect: (listener: () => void) => void;
}

/**
 * `epoch`: the shared epoch in Redis (null without REDIS_URL); `clock`: whose time the entries'
 * lifetimes are counted in (the root's); `lookups`: counts hits and misses (the metrics').
 */
export function createKeyCache(options: {
  db: () => Promise<Db>;
  epoch: EpochStore | null;
  clock?: Clock;
  lookups?: { inc(labels: { result: "hit" | "miss" }): void };
}): KeyCache {
  const { epoch: shared, lookups } = options;
  const clock = options.clock ?? systemClock;
  const entries = new Map<string, Entry>();
  let epoch: string | null = null;
  shared?.onReconnect(() => {
    entries.clear();
    epoch = null;
  });
  const cache: KeyCache = {
    verify: (presented) => verifyKey({ db: options.db, keys: cache }, presented),
    async syncEpoch() {
      const read = cache.readEpoch();
      if (read) cache.applyEpoch(await read);
    },
    readEpoch() {
      if (!shared) return null;
      return shared.ready().then((ready) => ready.get(shared.epochKey));
    },
    applyEpoch(value) {
      const next = value ?? "unset";
      if (next !== epoch) {
        entries.clear();
        epoch = next;
      }
    },
    async cached(hash, synced) {
      await (synced ?? cache.syncEpoch());
      const entry = entries.get(hash);
      if (!entry || entry.expires < clock.now()) {
        if (entry) entries.delete(hash);
        lookups?.inc({ result: "miss" });
        return undefined;
      }
      lookups?.inc({ result: "hit" });
      return entry;
    },
    remember(hash, key) {
      if (entries.size >= MAX_ENTRIES) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(hash, { key, expires: clock.now() + (key ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
    },
    forget() {
      entries.clear();
    },
    async invalidate() {
      entries.clear();
      if (!shared) return "told";
      const next = randomUUID();
      try {
        await (await shared.ready()).set(shared.epochKey, next);
      } catch (error) {
        if (unavailableDependency(error) === null) throw error;
        return "deferred";
      }
      epoch = next;
      return "told";
    },
  };
  return cache;
}

/** Resolves a presented key to its active key row, or null. Cached; revocation-aware. */
async function verifyKey(
  { db, keys }: { db: () => Promise<Db>; keys: KeyCache },
  presented: string,
): Promise<ResolvedKey | null> {
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const hit = await keys.cached(hash);
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
