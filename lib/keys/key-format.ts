import crypto, { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Fixed prefix of every key; the secret follows it. */
export const KEY_PREFIX = "svc_live_";
/** 32 random bytes as base62: ceil(256 / log2(62)) = 43 digits, left-padded. */
export const SECRET_BYTES = 32;
export const SECRET_LENGTH = 43;
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Secret characters shown in the display prefix (`key.prefix`) and kept as `lastFour`. */
const VISIBLE_CHARS = 4;

const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export interface GeneratedKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** SHA-256 hex of the full key: the only stored form of the secret. */
  hash: string;
  /** `svc_live_` + first 4 secret characters: identifies the key in the portal and GET /v1. */
  prefix: string;
  /** Last 4 characters of the key, for display. */
  lastFour: string;
}

/** Big-endian bytes as a fixed-width base62 big integer (43 digits for 32 bytes). */
export function encodeBase62(bytes: Uint8Array, width = SECRET_LENGTH): string {
  let n = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
  let digits = "";
  while (n > 0n) {
    digits = BASE62_ALPHABET.charAt(Number(n % 62n)) + digits;
    n /= 62n;
  }
  if (digits.length > width) throw new RangeError(`base62: value needs ${digits.length} digits > ${width}`);
  return digits.padStart(width, BASE62_ALPHABET.charAt(0));
}

/** SHA-256 hex of the whole key (prefix included). */
export function hashKey(key: string): string {
  // The one-shot digest (Node 20.12+) spares a Hash object per request on the keyed path.
  return oneShot ? oneShot("sha256", key, "hex") : createHash("sha256").update(key, "utf8").digest("hex");
}

const oneShot = (crypto as unknown as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** Mints a key from 32 CSPRNG bytes; `random` is injectable for deterministic tests only. */
export function generateKey(random: (size: number) => Uint8Array = randomBytes): GeneratedKey {
  const bytes = random(SECRET_BYTES);
  if (bytes.length !== SECRET_BYTES) throw new RangeError(`generateKey: need ${SECRET_BYTES} random bytes`);
  const secret = encodeBase62(bytes);
  const key = KEY_PREFIX + secret;
  return {
    key,
    hash: hashKey(key),
    prefix: KEY_PREFIX + secret.slice(0, VISIBLE_CHARS),
    lastFour: key.slice(-VISIBLE_CHARS),
  };
}

/** Cheap shape check before hashing: the prefix and exactly 43 base62 characters. */
export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** Constant-time equality of two hex digests; false for different lengths, empty or non-hex input. */
export function safeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length || !HEX.test(a) || !HEX.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}
