import "server-only";
import { randomUUID } from "node:crypto";
import { unavailableDependency } from "@/lib/db/unavailable";
import { onRedisReconnect, readyRedis, redis, redisKey } from "@/lib/redis";

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
 * Revocation holds on the very next request on every instance: a revoke or rotate sets a shared
 * epoch in Redis to a value never used before (a random token, not a counter: a Redis restarted
 * empty could count up to a value an instance already saw), and each keyed request reads it (in
 * the same pipelined round trip as the rate-limit script: ioredis auto-pipelining) and drops the
 * whole cache when it moved. A Redis that lost its data answers "unset", which differs from any
 * token an instance saw; and an instance that lost its connection drops its cache when it
 * reconnects, so a revocation made while Redis was unreachable holds too. Without Redis there is
 * one instance, and the revoking call clears this cache directly.
 */
export async function syncEpoch(): Promise<void> {
  const read = readEpoch();
  if (read) applyEpoch(await read);
}

/** Starts reading the shared epoch (null without Redis, where there is none); pass the value to applyEpoch. */
export function readEpoch(): Promise<string | null> | null {
  const client = redis();
  if (!client) return null;
  return readyRedis().then((ready) => ready.get(EPOCH()));
}

/** Takes an epoch value read from Redis (null: unset); drops the cache when it moved. */
export function applyEpoch(value: string | null): void {
  const epoch = value ?? "unset";
  if (epoch !== state.epoch) {
    state.entries.clear();
    state.epoch = epoch;
  }
}

onRedisReconnect(() => {
  state.entries.clear();
  state.epoch = null;
});

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

/** Drops every cached key of this process (a revocation read from the database, lib/keys/instances.ts). */
export function forgetKeys(): void {
  state.entries.clear();
}

/**
 * Called after a key stopped working (the change is already in the database): forget it here,
 * and tell every other instance through Redis. "deferred" when Redis cannot be told now: each
 * running instance then learns of it by itself, when it reconnects to Redis (it drops its cache)
 * and from the database within REVOCATION_WATCH_MS (lib/keys/instances.ts).
 */
export async function invalidateKeys(): Promise<"told" | "deferred"> {
  state.entries.clear();
  if (!redis()) return "told";
  const epoch = randomUUID();
  try {
    await (await readyRedis()).set(EPOCH(), epoch);
  } catch (error) {
    if (unavailableDependency(error) === null) throw error;
    return "deferred";
  }
  state.epoch = epoch;
  return "told";
}
