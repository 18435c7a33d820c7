import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, available, crc32Combine, gzipSegments } from "@/lib/api/compression";

// The production server compresses a reused segment once (lib/api/compression.ts); whatever
// the segments, the result must be one gzip member every decoder reads as the concatenation.

const text = (s: string) => new TextEncoder().encode(s);
const json = (n: number) => text(JSON.stringify(Array.from({ length: n }, (_, i) => ({ t: i, level: (i * 1.37).toFixed(8), note: "é—ü" }))));

describe("CRC-32 combination", () => {
  it.each([
    ["empty B", 0],
    ["one byte", 1],
    ["a few bytes", 7],
    ["4 KB", 4096],
    ["1 MB", 1 << 20],
  ])("crc(A+B) from crc(A), crc(B) and |B|: %s", (_label, n) => {
    const a = randomBytes(1000);
    const b = randomBytes(n);
    expect(crc32Combine(zlib.crc32(a), zlib.crc32(b), n)).toBe(zlib.crc32(Buffer.concat([a, b])));
  });

  it("from an empty A", () => {
    const b = randomBytes(333);
    expect(crc32Combine(0, zlib.crc32(b), b.length)).toBe(zlib.crc32(b));
  });
});

describe("gzipSegments", () => {
  it("this Node has zlib.crc32", () => {
    expect(available).toBe(true);
  });

  const cases: Array<[string, Uint8Array[]]> = [
    ["nothing", []],
    ["one small segment", [text('{"data":{}}')]],
    ["per-request text around a large reused segment", [text('{"data":{"points":'), json(3000), text('},"meta":{"generatedAt":"2026-11-22T05:00:00.000000Z"}}')]],
    ["empty segments in between", [text("a"), new Uint8Array(0), text("b")]],
    ["random bytes that do not compress", [randomBytes(70_000), randomBytes(10)]],
    ["stored segments only, one of 1,023 bytes", [text("x".repeat(1023)), text("é"), randomBytes(500)]],
    ["stored and compressed segments taking turns", [text("{"), json(300), text(","), json(3000), text("}")]],
  ];
  it.each(cases)("%s: gunzip gives the concatenation, and the output is one member with the right trailer", (_label, chunks) => {
    const gz = Buffer.concat(gzipSegments(chunks));
    const plain = Buffer.concat(chunks.map((c) => Buffer.from(c)));
    expect(zlib.gunzipSync(gz).equals(plain)).toBe(true);
    // A decoder that stops after the first member (as some HTTP clients do) reads it all too.
    const inflate = zlib.inflateRawSync(gz.subarray(10, gz.length - 8));
    expect(inflate.equals(plain)).toBe(true);
    expect(gz.readUInt32LE(gz.length - 8)).toBe(zlib.crc32(plain));
    expect(gz.readUInt32LE(gz.length - 4)).toBe(plain.length);
  });

  it("a reused segment is compressed once: the same bytes object gets the same compressed buffer", () => {
    const big = json(2000);
    const first = gzipSegments([text("x"), big]);
    const second = gzipSegments([text("y"), big]);
    expect(second[2]).toBe(first[2]);
    expect(first[1]).not.toBe(second[1]);
    expect(zlib.gunzipSync(Buffer.concat(second)).toString()).toBe(`y${Buffer.from(big).toString()}`);
  });

  it("a small per-request segment is stored as it is, a larger one compressed", () => {
    const meta = text(`,"meta":{"generatedAt":"2026-11-24T13:00:00.000000Z","pad":"${"a".repeat(600)}"}}`);
    const [, stored] = gzipSegments([meta]);
    // One stored block: header byte 0, LEN, NLEN, then the bytes verbatim.
    expect(stored![0]).toBe(0);
    expect(stored!.readUInt16LE(1)).toBe(meta.byteLength);
    expect(stored!.readUInt16LE(3)).toBe(~meta.byteLength & 0xffff);
    expect(stored!.subarray(5).equals(Buffer.from(meta))).toBe(true);
    const larger = text(`{"pad":"${"a".repeat(2000)}"}`);
    const [, deflated] = gzipSegments([larger]);
    expect(deflated!.length).toBeLessThan(larger.byteLength / 4);
  });

  it("compresses a reused history well", () => {
    const big = json(5000);
    const gz = Buffer.concat(gzipSegments([big]));
    expect(gz.length).toBeLessThan(big.byteLength / 4);
  });
});

describe("acceptsGzip", () => {
  it.each([
    [undefined, false],
    ["", false],
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["br;q=1.0, gzip;q=0.8, *;q=0.1", true],
    ["GZIP", true],
    ["x-gzip", true],
    ["identity", false],
    ["br", false],
    ["gzip;q=0", false],
    ["gzip;q=0.000", false],
    ["*", true],
    ["*;q=0", false],
    ["gzip;q=0, *", false],
    ["deflate, *;q=0.5", true],
  ])("%s -> %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
