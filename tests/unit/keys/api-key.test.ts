import { createHash, randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  BASE62_ALPHABET,
  KEY_PREFIX,
  SECRET_LENGTH,
  encodeBase62,
  generateKey,
  hashKey,
  looksLikeKey,
  safeEqualHex,
} from "@/lib/keys/api-key";

const filled = (byte: number) => () => new Uint8Array(32).fill(byte);

/** Reference decoder: base62 digits back to a big integer. */
function decodeBase62(s: string): bigint {
  let n = 0n;
  for (const ch of s) n = n * 62n + BigInt(BASE62_ALPHABET.indexOf(ch));
  return n;
}

describe("encodeBase62", () => {
  test.each([
    ["zero", new Uint8Array(32), "0".repeat(43)],
    ["one", Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0)), `${"0".repeat(42)}1`],
    ["sixty-two", Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 62 : 0)), `${"0".repeat(41)}10`],
    ["61", Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 61 : 0)), `${"0".repeat(42)}z`],
  ])("%s", (_name, bytes, expected) => {
    expect(encodeBase62(bytes)).toBe(expected);
  });

  test("the largest 32-byte value still fits 43 digits and round-trips", () => {
    const max = encodeBase62(new Uint8Array(32).fill(0xff));
    expect(max).toHaveLength(43);
    expect(decodeBase62(max)).toBe(2n ** 256n - 1n);
  });

  test("round-trips random values", () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(32);
      expect(decodeBase62(encodeBase62(bytes))).toBe(BigInt(`0x${bytes.toString("hex")}`));
    }
  });

  test("refuses a value wider than the field", () => {
    expect(() => encodeBase62(new Uint8Array(33).fill(0xff))).toThrow(RangeError);
  });
});

describe("generateKey", () => {
  test("is svc_live_ + 43 base62 characters", () => {
    const { key } = generateKey();
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);
    expect(key).toHaveLength(KEY_PREFIX.length + SECRET_LENGTH);
  });

  test("stores only derived values: hash of the whole key, display prefix, last four", () => {
    const g = generateKey(filled(0xab));
    expect(g.hash).toBe(createHash("sha256").update(g.key).digest("hex"));
    expect(g.prefix).toBe(g.key.slice(0, KEY_PREFIX.length + 4));
    expect(g.prefix.startsWith(KEY_PREFIX)).toBe(true);
    expect(g.lastFour).toBe(g.key.slice(-4));
  });

  test("is deterministic in its random source (all-zero bytes)", () => {
    expect(generateKey(filled(0)).key).toBe(`svc_live_${"0".repeat(43)}`);
  });

  test("draws 32 fresh bytes per key", () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey().key));
    expect(keys.size).toBe(1000);
  });

  test("refuses a random source that returns the wrong length", () => {
    expect(() => generateKey(() => new Uint8Array(16))).toThrow(RangeError);
  });
});

describe("hashKey", () => {
  test("is SHA-256 hex of the whole key, prefix included", () => {
    expect(hashKey("svc_live_abc")).toBe(createHash("sha256").update("svc_live_abc").digest("hex"));
    expect(hashKey("svc_live_abc")).not.toBe(hashKey("abc"));
    expect(hashKey("x")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("looksLikeKey", () => {
  const good = `svc_live_${"A".repeat(43)}`;
  test.each([
    [good, true],
    [generateKey().key, true],
    [`svc_live_${"A".repeat(42)}`, false],
    [`svc_live_${"A".repeat(44)}`, false],
    [`svc_test_${"A".repeat(43)}`, false],
    [`SVC_LIVE_${"A".repeat(43)}`, false],
    [`svc_live_${"A".repeat(42)}-`, false],
    [`svc_live_${"A".repeat(42)}_`, false],
    [` ${good}`, false],
    [`${good}\n`, false],
    ["", false],
    [`svc_live_${"é".repeat(43)}`, false],
  ])("%j -> %s", (value, expected) => {
    expect(looksLikeKey(value)).toBe(expected);
  });
});

describe("safeEqualHex", () => {
  const h = hashKey("svc_live_one");
  test.each([
    [h, h, true],
    [h, h.toUpperCase(), true],
    [h, hashKey("svc_live_two"), false],
    [h, h.slice(0, 62), false],
    ["", "", false],
    ["abc", "abc", false],
    ["zz", "zz", false],
    [`${h.slice(0, 63)}g`, `${h.slice(0, 63)}g`, false],
  ])("%s vs %s -> %s", (a, b, expected) => {
    expect(safeEqualHex(a, b)).toBe(expected);
  });
});
