// A short-lived read-through cache for read models: data changes once per engine tick, and
// every instance serves a value at most `ttlMs` old. `clearReadCache` runs after each tick.
const store = ((globalThis as { __pmbReadCache?: Map<string, { at: number; value: Promise<unknown> }> }).__pmbReadCache ??= new Map());

export function memo<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const hit = store.get(key);
  if (hit && now - hit.at < ttlMs) return hit.value as Promise<T>;
  const value = load();
  store.set(key, { at: now, value });
  value.catch(() => store.delete(key));
  if (store.size > 2000) store.delete(store.keys().next().value as string);
  return value;
}

const versions = ((globalThis as { __pmbReadVersions?: Map<string, { version: string; value: unknown }> }).__pmbReadVersions ??= new Map());

/**
 * `memo`, for a large value that rarely changes (a 90-day window): when the TTL ends only
 * `version()` runs, a small query, and the value is loaded again only when the version moved.
 * The same objects then serve across refreshes, and with them the JSON and compressed bytes
 * built for them (lib/api/json-body.ts, scripts/gzip-segments.mjs), instead of all of it being
 * rebuilt, on the request path, every TTL.
 */
export function versionedMemo<T>(key: string, ttlMs: number, version: () => Promise<string>, load: () => Promise<T>): Promise<T> {
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
}

export function clearReadCache(): void {
  store.clear();
}

/**
 * A frozen value kept by key in a small map that lives inside a memoized window: requests for
 * the same selection get the same (frozen) object, so its JSON is built once (lib/api/json-body.ts).
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
