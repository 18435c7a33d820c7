// How the node:http adapter encodes a body: gzip for clients that accept it, when the body is
// compressible and large enough to be worth it.
import zlib from "node:zlib";

/** Bodies from this size on are compressed for clients that accept it. */
export const COMPRESS_AT = 1024;

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
  body: Buffer;
}

/**
 * The body to write for a client's Accept-Encoding: gzip for a compressible body of COMPRESS_AT
 * bytes or more, else as it is; a compressible body carries `Vary: Accept-Encoding` either way,
 * since another client may get it encoded.
 */
export function encodeBody(
  body: string | Uint8Array | null,
  contentType: string | undefined,
  acceptEncoding: string | null | undefined,
): Encoded {
  const bytes =
    body === null
      ? Buffer.alloc(0)
      : typeof body === "string"
        ? Buffer.from(body, "utf8")
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.length === 0 || !compressible(contentType)) return { headers: {}, body: bytes };
  if (bytes.length >= COMPRESS_AT && acceptsGzip(acceptEncoding))
    return { headers: { "Content-Encoding": "gzip", Vary: "Accept-Encoding" }, body: zlib.gzipSync(bytes) };
  return { headers: { Vary: "Accept-Encoding" }, body: bytes };
}
