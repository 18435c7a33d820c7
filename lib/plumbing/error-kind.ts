/**
 * Whether a thrown value is one of our errors of a kind, by its `kind` field. Errors cross module
 * boundaries, and in the production build a class exists in as many copies as the chunks that
 * bundle it, so `instanceof` is false for an error made by another chunk's copy: every error
 * class that is caught by type outside its own module carries a `kind` and is tested by it.
 */
export function hasErrorKind<K extends string>(value: unknown, kind: K): value is Error & { kind: K } {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === kind;
}
