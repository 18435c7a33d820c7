/** Tolerant readers of venue JSON: a field of the wrong type reads as absent, never as a value. */
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (o: Obj, k: string): string | null =>
  typeof o[k] === "string" && (o[k] as string).length > 0 ? (o[k] as string) : null;
export const bool = (o: Obj, k: string): boolean | null => (typeof o[k] === "boolean" ? (o[k] as boolean) : null);
export const arr = (o: Obj, k: string): unknown[] | null => (Array.isArray(o[k]) ? (o[k] as unknown[]) : null);

/** A JSON-encoded array held in a string (Gamma's `clobTokenIds`, `outcomePrices`), or a plain array. */
export function encodedArray(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v !== "string") return null;
  try {
    const parsed = JSON.parse(v) as unknown;
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** A list cut into batches of at most `size` (a venue's batch read). */
export const chunks = <T>(list: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/** The UTC date of a timestamp, as a Date at midnight; null when unreadable. */
export function dateOf(v: unknown): Date | null {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  const d = new Date(t);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

export const legKeyOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48) || "leg";
