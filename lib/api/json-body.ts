// A success body is JSON.stringify of the envelope, byte for byte, but a frozen object or array
// inside it is serialized and UTF-8 encoded once and its bytes reused: read models freeze what
// they share between requests (immutable per data version), so a 90-day history is not
// serialized again for every response, while `meta` (generatedAt, window) stays per request.
// The reused bytes keep their identity through the Response's stream, so the production server
// compresses each of them once for gzip clients (scripts/gzip-segments.mjs).

/** A frozen value's JSON and its UTF-8 bytes, each computed on first use. */
interface Cached {
  text: string;
  bytes?: Uint8Array;
}

type Part = string | Cached;

const cache = new WeakMap<object, Cached>();
const encoder = new TextEncoder();

/**
 * Below this many characters a body is one string: joining a few KB of cached text costs less
 * than a stream of parts (a latest value, a catalog); a long history is streamed, not copied.
 */
const STREAM_THRESHOLD = 64 * 1024;

/** The body as text: exactly `JSON.stringify(value)` for JSON data. */
export function jsonText(value: unknown): string {
  return textOf(jsonParts(value));
}

function textOf(parts: Part[]): string {
  let text = "";
  for (const p of parts) text += typeof p === "string" ? p : p.text;
  return text;
}

/** The body for a Response: one string below STREAM_THRESHOLD, else a stream of the reused bytes between per-request pieces. */
export function jsonBody(value: unknown): string | ReadableStream<Uint8Array> {
  const chunks = jsonChunks(value);
  return typeof chunks === "string" ? chunks : streamOf(chunks);
}

/** The same body as one string below STREAM_THRESHOLD, else the reused bytes between per-request pieces. */
export function jsonChunks(value: unknown): string | Uint8Array[] {
  return chunksOf(jsonParts(value));
}

/**
 * `jsonChunks({ data, meta })`, byte for byte, for the success envelope: `data` as jsonParts
 * serializes it (a frozen read model's bytes reused), `meta` (a few per-request fields) in one
 * JSON.stringify instead of member by member.
 */
export function envelopeChunks(data: unknown, meta: Record<string, unknown>): string | Uint8Array[] {
  if (data === undefined || typeof data === "function" || typeof data === "symbol") return jsonChunks({ data, meta });
  const parts: Part[] = ['{"data":'];
  jsonParts(data, 2, parts);
  push(parts, `,"meta":${JSON.stringify(meta)}}`);
  return chunksOf(parts);
}

function chunksOf(parts: Part[]): string | Uint8Array[] {
  let length = 0;
  for (const p of parts) length += typeof p === "string" ? p.length : p.text.length;
  if (length < STREAM_THRESHOLD) return textOf(parts);
  return parts.map((p) => (typeof p === "string" ? encoder.encode(p) : bytesOf(p)));
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

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}
