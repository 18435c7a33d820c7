import "server-only";
import { redis, redisKey } from "@/lib/redis";

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

interface Entry {
  key: ResolvedKey | null;
  expires: number;
}

interface CacheState {
  entries: Map<string, Entry>;
  epoch: string | null;
}

const state: CacheState = ((globalThis as { __pmbKeyCache?: CacheState }).__pmbKeyCache ??= { entries: new Map(), epoch: null });

const EPOCH = () => redisKey("keys:epoch");

/**
 * Revocation holds on the very next request on every instance: a revoke or rotate bumps a
 * shared epoch in Redis, and each lookup reads it (one round trip that shares the connection
 * with the rate limiter) and drops the whole cache when it moved. Without Redis there is one
 * instance, and the revoking call clears this cache directly.
 */
export async function syncEpoch(): Promise<void> {
  const client = redis();
  if (!client) return;
  applyEpoch(await client.get(EPOCH()));
}

/**
 * The Redis key of the shared epoch, for a caller that reads it inside another atomic step (the
 * rate-limit script); null without Redis, where there is no epoch to read.
 */
export function epochKey(): string | null {
  return redis() ? EPOCH() : null;
}

/** Takes an epoch value read from Redis (null: never bumped); drops the cache when it moved. */
export function applyEpoch(value: string | null): void {
  const epoch = value ?? "0";
  if (epoch !== state.epoch) {
    state.entries.clear();
    state.epoch = epoch;
  }
}

/** The cached entry for a key hash; `synced` is an epoch read already under way for this request. */
export async function cachedKey(hash: string, synced?: Promise<void>): Promise<Entry | undefined> {
  await (synced ?? syncEpoch());
  const entry = state.entries.get(hash);
  if (!entry) return undefined;
  if (entry.expires < Date.now()) {
    state.entries.delete(hash);
    return undefined;
  }
  return entry;
}

/**
 * The entry this instance holds for a key hash, without reading the revocation epoch: a hint
 * that lets a request start spending before the epoch read returns. Never an answer by itself:
 * the request is decided by `cachedKey` once the epoch is known.
 */
export function peekKey(hash: string): ResolvedKey | null {
  const entry = state.entries.get(hash);
  return entry && entry.expires >= Date.now() ? entry.key : null;
}

export function rememberKey(hash: string, key: ResolvedKey | null): void {
  if (state.entries.size >= MAX_ENTRIES) {
    const oldest = state.entries.keys().next();
    if (!oldest.done) state.entries.delete(oldest.value);
  }
  state.entries.set(hash, { key, expires: Date.now() + (key ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
}

/** Called after a key stopped working: forget it here, and tell every other instance. */
export async function invalidateKeys(): Promise<void> {
  state.entries.clear();
  const client = redis();
  if (client) state.epoch = String(await client.incr(EPOCH()));
}
