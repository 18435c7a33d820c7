// A value now, or a promise of it: transport plumbing (the pipeline, the limiter's stores), never
// a read model's return type. The /v1 hot path answers synchronously when everything it needs is
// in memory (a cached key, the in-process limiter, a read model already loaded), and
// only waits when it must: every promise costs a microtask turn and, under Next's
// AsyncLocalStorage, a run of the async hooks. Callers that `await` an Awaitable work either way.

export type Awaitable<T> = T | Promise<T>;

export function isPromise<T>(value: Awaitable<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** `f(value)` now when the value is here, else once it settles (a rejection passes through). */
export function andThen<T, U>(value: Awaitable<T>, f: (v: T) => Awaitable<U>): Awaitable<U> {
  return isPromise(value) ? value.then(f) : f(value);
}
