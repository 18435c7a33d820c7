// How the node:http adapter encodes a body: gzip for clients that accept it, assembled from
// separately compressed segments so that a segment sent again (a read model's reused JSON bytes,
// lib/api/json-body.ts) is compressed once, not per response.
//
// Each segment is a raw deflate stream ended with a sync flush: byte-aligned and not final, and
// referring only to its own bytes, so segments concatenate into one valid deflate stream (the
// technique pigz uses). A small per-request segment (an envelope's opening, its `meta`) is one
// stored block instead: its bytes as they are, with no compressor set up for a few hundred bytes.
// An empty final block closes the stream; the CRC-32 of the whole body is combined from the
// segments' CRCs without reading the cached bytes again.
import zlib from "node:zlib";
import { joinSmall } from "@/lib/api/json-body";

const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]); // gzip, deflate, no name, no mtime, Unix
const FINAL = zlib.deflateRawSync(Buffer.alloc(0)); // an empty final block
const SYNC = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** Segments at least this long are kept, by identity, with their compressed form. */
const KEEP = 4096;
/**
 * Segments shorter than this are sent stored, not compressed: setting up a compressor (deflateInit
 * allocates and clears its window and tables) costs tens of microseconds, more than the few
 * hundred bytes it would save are worth. Never above 65,535, a stored block's limit.
 */
const STORE_BELOW = 1024;
/** Bodies from this size on are compressed for clients that accept it. */
export const COMPRESS_AT = 1024;

interface Segment {
  deflated: Buffer;
  crc: number;
  length: number;
}

const kept = new WeakMap<Uint8Array, Segment>();
const crc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** Whether this Node has what the segmented body needs (zlib.crc32: Node 20.15 and later). */
export const available = typeof crc32 === "function";

function segment(chunk: Uint8Array): Segment {
  const hit = kept.get(chunk);
  if (hit) return hit;
  if (chunk.byteLength < STORE_BELOW) return { deflated: storedBlock(chunk), crc: crc32!(chunk), length: chunk.byteLength };
  const s = { deflated: zlib.deflateRawSync(chunk, SYNC), crc: crc32!(chunk), length: chunk.byteLength };
  if (chunk.byteLength >= KEEP) kept.set(chunk, s);
  return s;
}

/**
 * The bytes as one stored deflate block that is not the last (RFC 1951, 3.2.4): a header byte
 * (BFINAL 0, BTYPE 00, the rest of the byte padding: every segment starts on a byte boundary),
 * LEN and its one's complement NLEN, little-endian, then the bytes themselves.
 */
function storedBlock(chunk: Uint8Array): Buffer {
  const length = chunk.byteLength;
  const out = Buffer.allocUnsafe(5 + length);
  out[0] = 0;
  out.writeUInt16LE(length, 1);
  out.writeUInt16LE(~length & 0xffff, 3);
  out.set(chunk, 5);
  return out;
}

/** The chunks' concatenation, gzip-compressed, as a list of buffers to write in order. */
export function gzipSegments(chunks: readonly Uint8Array[]): Buffer[] {
  const out: Buffer[] = [HEADER];
  let crc = 0;
  let length = 0;
  for (const chunk of chunks) {
    if (chunk.byteLength === 0) continue;
    const s = segment(chunk);
    out.push(s.deflated);
    crc = crc32Combine(crc, s.crc, s.length);
    length += s.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  out.push(FINAL, trailer);
  return out;
}

/** Whether an Accept-Encoding header admits gzip (by name or `*`, with a q above 0). */
export function acceptsGzip(header: string | string[] | undefined | null): boolean {
  if (!header) return false;
  let star = false;
  for (const item of String(header).split(",")) {
    const [name, ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name === "gzip" || name === "x-gzip") return weight > 0;
    if (name === "*") star = weight > 0;
  }
  return star;
}

/** Content types worth compressing: JSON and text (CSV included). */
export function compressible(contentType: string | undefined): boolean {
  return !!contentType && /^(application\/(json|[a-z0-9.+-]*\+json)|text\/)/i.test(contentType);
}

export interface Encoded {
  /** Headers to add: Content-Encoding and Vary when the body may be transformed. */
  headers: Record<string, string>;
  /** The bytes to write: text as it is (written with the head in one write), or buffers in order. */
  body: string | readonly Uint8Array[];
  length: number;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const VARY: Record<string, string> = Object.freeze({ Vary: "Accept-Encoding" }) as Record<string, string>;
const GZIP: Record<string, string> = Object.freeze({ "Content-Encoding": "gzip", Vary: "Accept-Encoding" }) as Record<string, string>;

/**
 * The body to write for a client's Accept-Encoding: gzip from segments for a compressible body of
 * COMPRESS_AT bytes or more, else as it is (a small body's parts joined into one buffer); a
 * compressible body carries `Vary: Accept-Encoding` either way, since another client may get it
 * encoded.
 */
export function encodeBody(body: string | readonly Uint8Array[] | null, contentType: string | undefined, acceptEncoding: string | string[] | undefined): Encoded {
  let length = 0;
  if (typeof body === "string") length = Buffer.byteLength(body, "utf8");
  else if (body !== null) for (const p of body) length += p.byteLength;
  const plain = body === null ? "" : typeof body === "string" ? body : joinSmall(body, length);
  if (length === 0 || !compressible(contentType)) return { headers: NO_HEADERS, body: plain, length };
  if (available && length >= COMPRESS_AT && acceptsGzip(acceptEncoding)) {
    const gz = gzipSegments(typeof body === "string" ? [Buffer.from(body, "utf8")] : body!);
    let gzLength = 0;
    for (const p of gz) gzLength += p.length;
    return { headers: GZIP, body: gz, length: gzLength };
  }
  return { headers: VARY, body: plain, length };
}

// CRC-32 combination, as zlib's crc32_combine: multiplication modulo the CRC polynomial.
const POLY = 0xedb88320;

function multmodp(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

// x^(2^n) modulo the polynomial, for n = 0..31.
const X2N: number[] = new Array<number>(32);
X2N[0] = 0x40000000;
for (let n = 1; n < 32; n++) X2N[n] = multmodp(X2N[n - 1]!, X2N[n - 1]!);

function x2nmodp(n: number, k: number): number {
  let p = 0x80000000;
  while (n > 0) {
    if (n % 2) p = multmodp(X2N[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multmodp(x2nmodp(lengthB, 3), crcA) ^ crcB) >>> 0;
}
