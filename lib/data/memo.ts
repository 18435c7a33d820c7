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
