// A success body is JSON.stringify of the envelope, byte for byte, but a frozen object or array
// inside it is serialized and UTF-8 encoded once and its bytes reused: read models freeze what
// they share between requests (immutable per data version), so a 90-day history is not
// serialized again for every response, while `meta` (generatedAt, window) stays per request.
// A body holding reused bytes is a list of parts: the reused bytes as they are, never encoded or
// copied again, between the per-request pieces. The transport joins a small body's parts into one
// buffer (`joinSmall`) and writes a large one's in order; the reused bytes keep their identity up
// to the compressor, which deflates each of them once for gzip clients (lib/api/compression.ts).

/** A frozen value's JSON and its UTF-8 bytes, each computed on first use. */
interface Cached {
  text: string;
  bytes?: Uint8Array;
}

type Part = string | Cached;

const cache = new WeakMap<object, Cached>();
/** Reused bytes get a buffer of their own (Buffer.from would share a pool slab with per-request pieces). */
const encoder = new TextEncoder();

/**
 * Parts of fewer bytes than this in all are sent as one buffer: copying a few KB (a latest value,
 * a catalog) costs less than writing parts one by one; a long history is written in its parts.
 */
export const JOIN_BELOW = 64 * 1024;

/** The body as text: exactly `JSON.stringify(value)` for JSON data. */
export function jsonText(value: unknown): string {
  return textOf(jsonParts(value));
}

function textOf(parts: Part[]): string {
  let text = "";
  for (const p of parts) text += typeof p === "string" ? p : p.text;
  return text;
}

/** The body as one string when nothing in it is reused, else the reused bytes between per-request pieces. */
export function jsonChunks(value: unknown): string | Uint8Array[] {
  return chunksOf(jsonParts(value));
}

/**
 * `jsonChunks({ data, meta })`, byte for byte, for the success envelope: `data` as jsonParts
 * serializes it (a frozen read model's bytes reused), `meta` (a few per-request fields) in one
 * JSON.stringify instead of member by member, or given as that JSON text (`metaJson` in
 * lib/api/pipeline.ts builds it without serializing the common members each time).
 */
export function envelopeChunks(data: unknown, meta: Record<string, unknown> | string): string | Uint8Array[] {
  const metaText = typeof meta === "string" ? meta : JSON.stringify(meta);
  if (data === undefined || typeof data === "function" || typeof data === "symbol") return `{"meta":${metaText}}`;
  const parts: Part[] = ['{"data":'];
  jsonParts(data, 2, parts);
  push(parts, `,"meta":${metaText}}`);
  return chunksOf(parts);
}

function chunksOf(parts: Part[]): string | Uint8Array[] {
  if (parts.every((p) => typeof p === "string")) return textOf(parts);
  return parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : bytesOf(p)));
}

/** The parts as one buffer when they are several and fewer than JOIN_BELOW bytes in all; else as they are. */
export function joinSmall(parts: readonly Uint8Array[], length = byteLength(parts)): readonly Uint8Array[] {
  return parts.length > 1 && length < JOIN_BELOW ? [Buffer.concat(parts, length)] : parts;
}

function byteLength(parts: readonly Uint8Array[]): number {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  return n;
}

function jsonParts(value: unknown, depth = 3, out: Part[] = []): Part[] {
  if (value !== null && typeof value === "object" && Object.isFrozen(value)) {
    let hit = cache.get(value);
    if (!hit) {
      hit = { text: JSON.stringify(value) };
      cache.set(value, hit);
    }
    out.push(hit);
  } else if (value !== null && typeof value === "object" && depth > 0 && isPlainObject(value)) {
    push(out, "{");
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      push(out, `${first ? "" : ","}${JSON.stringify(k)}:`);
      first = false;
      jsonParts(v, depth - 1, out);
    }
    push(out, "}");
  } else {
    push(out, JSON.stringify(value));
  }
  return out;
}

function push(out: Part[], text: string): void {
  const last = out.length - 1;
  if (typeof out[last] === "string") out[last] += text;
  else out.push(text);
}

/** An object literal without toJSON: its members serialize independently. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !("toJSON" in value);
}

function bytesOf(c: Cached): Uint8Array {
  return (c.bytes ??= encoder.encode(c.text));
}
