import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, encodeBody } from "@/lib/api/node-adapter";

const json = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ t: i, level: (i * 1.37).toFixed(8), note: "é—ü" })));

describe("encodeBody", () => {
  it("gzips a large JSON body for a client that accepts gzip; it decodes to the same bytes", () => {
    const body = json(2000);
    const encoded = encodeBody(body, "application/json; charset=utf-8", "gzip, br");
    expect(encoded.headers).toEqual({ "Content-Encoding": "gzip", Vary: "Accept-Encoding" });
    const gz = Buffer.concat(encoded.body);
    expect(zlib.gunzipSync(gz).toString("utf8")).toBe(body);
    expect(gz.length).toBeLessThan(Buffer.byteLength(body) / 4);
  });

  it("sends a small or unaccepted body as it is, with Vary", () => {
    expect(encodeBody("{}", "application/json", "gzip")).toEqual({
      headers: { Vary: "Accept-Encoding" },
      body: [Buffer.from("{}")],
    });
    expect(encodeBody(json(100), "application/json", "identity").headers).toEqual({ Vary: "Accept-Encoding" });
  });

  it("never transforms a zip file", () => {
    const zip = new Uint8Array(4096).fill(7);
    expect(encodeBody(zip, "application/zip", "gzip")).toEqual({ headers: {}, body: [zip] });
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

describe("gzipEnvelope", () => {
  it("is one gzip member: the cached data part and each answer's own rest decode to the whole body", async () => {
    const { bodyAround, serializedData } = await import("@/lib/api/responses");
    const dataJson = json(3000);
    const data = serializedData(dataJson);
    const end = (meta: unknown) => `,"meta":${JSON.stringify(meta)}}`;
    const first = bodyAround(data, end({ generatedAt: "2031-01-01T00:00:00.000000Z" }));
    const second = bodyAround(data, end({ generatedAt: "2031-01-01T00:00:01.000000Z", note: "é" }));
    const whole = (parts: Buffer[]) => Buffer.concat(parts);
    expect(zlib.gunzipSync(whole(first.gzip()))).toEqual(whole(first.body));
    const head = data.head;
    expect(head).toBeDefined();
    expect(zlib.gunzipSync(whole(second.gzip()))).toEqual(whole(second.body));
    expect(data.head).toBe(head); // the data part deflated once
    expect(second.body[0]).toBe(data.start); // the cached start is sent as it is, not copied
    expect(JSON.parse(whole(second.body).toString("utf8"))).toEqual({
      data: JSON.parse(dataJson),
      meta: { generatedAt: "2031-01-01T00:00:01.000000Z", note: "é" },
    });
    // one member, not two: the bytes between the 10-byte header and the 8-byte trailer are one deflate stream of the whole body
    const gz = whole(second.gzip());
    expect(zlib.inflateRawSync(gz.subarray(10, gz.length - 8))).toEqual(whole(second.body));
  });
});
