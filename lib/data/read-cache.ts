import type { Db } from "@/lib/db";
import type { BackfillProgress } from "@/lib/plumbing/backfill-progress";
import { systemClock, type Clock } from "@/lib/time-format";

// A short-lived read-through cache for read models: data changes once per engine tick, and
// every instance serves a value at most `ttlMs` old. `clear` runs after each tick. One per root
// (lib/root.ts); a test builds its own.

/** What a read model needs: the database, the read cache, and where the start-up backfill is. */
export interface ReadContext {
  db: () => Promise<Db>;
  cache: ReadCache;
  progress: Readonly<BackfillProgress>;
}

export interface ReadCache {
  /** The cached value while it is fresh, else `load()` (one load shared by concurrent callers; a failed load is forgotten). */
  memo<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /**
   * `memo`, for a large value that rarely changes (a 90-day window): when the TTL ends only
   * `version()` runs, a small query, and the value is loaded again only when the version moved.
   * The same objects then serve across refreshes instead of being rebuilt every TTL.
   */
  versioned<T>(key: string, ttlMs: number, version: () => Promise<string>, load: () => Promise<T>): Promise<T>;
  /** After the data changed (an engine tick, an ingest, an incident): read models are loaded again on their next use. */
  clear(): void;
}

interface Entry {
  at: number;
  value: Promise<unknown>;
}

/** `clock`: whose time the TTLs are counted in (the root's). */
export function createReadCache(clock: Clock = systemClock): ReadCache {
  const store = new Map<string, Entry>();
  const versions = new Map<string, { version: string; value: unknown }>();

  function memo<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const now = clock.now();
    const hit = store.get(key);
    if (hit && now - hit.at < ttlMs) return hit.value as Promise<T>;
    const value = load();
    const entry: Entry = { at: now, value };
    store.set(key, entry);
    value.catch(() => store.get(key) === entry && store.delete(key));
    if (store.size > 2000) store.delete(store.keys().next().value as string);
    return value;
  }

  return {
    memo,
    versioned<T>(key: string, ttlMs: number, version: () => Promise<string>, load: () => Promise<T>): Promise<T> {
      return memo(key, ttlMs, async () => {
        const current = await version();
        const kept = versions.get(key);
        if (kept && kept.version === current) return kept.value as T;
        const value = await load();
        versions.delete(key);
        versions.set(key, { version: current, value });
        if (versions.size > 500) versions.delete(versions.keys().next().value as string);
        return value;
      });
    },
    clear() {
      store.clear();
    },
  };
}

/**
 * A frozen value kept by key in a small map that lives inside a memoized window: requests for
 * the same selection get the same (frozen) object, not a new slice each.
 * The oldest selection is dropped past `max`.
 */
export function keptFrozen<T extends object>(kept: Map<string, T>, key: string, make: () => T, max = 16): T {
  let value = kept.get(key);
  if (!value) {
    value = Object.freeze(make());
    if (kept.size >= max) kept.delete(kept.keys().next().value as string);
    kept.set(key, value);
  }
  return value;
}
