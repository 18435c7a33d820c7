import "server-only";
import { randomUUID } from "node:crypto";
import { unavailableDependency } from "@/lib/db/unavailable";
import type Redis from "ioredis";
import { systemClock, type Clock } from "@/lib/plumbing/clock";

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

/** What the key cache needs of Redis: the connection (null without REDIS_URL), its ready form, the epoch's key, reconnections. */
export interface EpochStore {
  redis: () => Redis | null;
  ready: () => Promise<Redis>;
  epochKey: string;
  onReconnect: (listener: () => void) => void;
}

/** `clock`: whose time the entries' lifetimes are counted in (the root's). */
export function createKeyCache(shared: EpochStore & { clock?: Clock; onLookup?: (hit: boolean) => void }): KeyCache {
  const clock = shared.clock ?? systemClock;
  const entries = new Map<string, Entry>();
  let epoch: string | null = null;
  shared.onReconnect(() => {
    entries.clear();
    epoch = null;
  });
  const cache: KeyCache = {
    async syncEpoch() {
      const read = cache.readEpoch();
      if (read) cache.applyEpoch(await read);
    },
    readEpoch() {
      if (!shared.redis()) return null;
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
        shared.onLookup?.(false);
        return undefined;
      }
      shared.onLookup?.(true);
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
      if (!shared.redis()) return "told";
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
