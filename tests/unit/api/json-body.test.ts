import { describe, expect, it } from "vitest";
import { envelopeChunks, jsonChunks, jsonText, joinSmall, JOIN_BELOW } from "@/lib/api/json-body";

const points = Object.freeze([Object.freeze({ t: "2026-11-21T13:00:00.000000Z", indexLevel: "101.25000000", revision: 0, stale: false })]);

describe("jsonText is JSON.stringify byte for byte", () => {
  const cases: Array<[string, unknown]> = [
    ["an envelope with a frozen history", { data: { ticker: "PMX-A", interval: "1h", count: 1, points }, meta: { generatedAt: "x", clamped: false } }],
    ["a frozen data object", { data: Object.freeze({ a: 1, b: [1, 2], c: null }), meta: {} }],
    ["undefined, function and symbol members are left out", { data: { a: undefined, b: () => 1, c: Symbol("s"), d: 1 }, meta: { e: undefined } }],
    ["undefined inside arrays becomes null", { data: [undefined, 1, () => 2], meta: {} }],
    ["dates and toJSON", { data: { at: new Date(Date.UTC(2026, 10, 21)), own: { toJSON: () => "custom" } }, meta: {} }],
    ["numbers that JSON has no form for", { data: { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -0 }, meta: {} }],
    ["keys that need escaping and integer-like keys", { data: { 'a"b': "\u2028", 2: "two", 1: "one" }, meta: {} }],
    ["a null-prototype object", { data: Object.assign(Object.create(null) as object, { x: 1 }), meta: {} }],
    ["deep nesting", { data: { a: { b: { c: { d: { e: [1, { f: 2 }] } } } } }, meta: {} }],
    ["primitives", "text"],
    ["null", null],
  ];
  it.each(cases)("%s", (_name, value) => {
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });
});

describe("a frozen value's text is computed once and reused", () => {
  it("serializes a frozen object once across responses", () => {
    let reads = 0;
    const data = Object.freeze(
      Object.defineProperty({}, "level", {
        enumerable: true,
        get: () => {
          reads += 1;
          return "100.00000000";
        },
      }),
    );
    const first = jsonText({ data, meta: { generatedAt: "a" } });
    const second = jsonText({ data, meta: { generatedAt: "b" } });
    expect(first).toBe('{"data":{"level":"100.00000000"},"meta":{"generatedAt":"a"}}');
    expect(second).toBe('{"data":{"level":"100.00000000"},"meta":{"generatedAt":"b"}}');
    expect(reads).toBe(1);
  });

  it("serializes an unfrozen object on every call", () => {
    let reads = 0;
    const data = Object.defineProperty({}, "level", { enumerable: true, get: () => String(++reads) });
    expect(jsonText({ data })).toBe('{"data":{"level":"1"}}');
    expect(jsonText({ data })).toBe('{"data":{"level":"2"}}');
  });
});

const text = (chunks: string | Uint8Array[]) => (typeof chunks === "string" ? chunks : Buffer.concat(chunks).toString("utf8"));

const history = (n: number) =>
  Object.freeze(Array.from({ length: n }, (_, i) => Object.freeze({ t: new Date(Date.UTC(2026, 7, 1) + i * 3_600_000).toISOString(), indexLevel: `${100 + i / 7}`, revision: 0, stale: i % 5 === 0 })));

describe("jsonChunks is the same JSON, in parts around reused bytes", () => {
  const large = history(3000);
  const cases: Array<[string, unknown, "string" | "parts"]> = [
    ["a body with nothing frozen is one string", { data: { a: 1 }, meta: { generatedAt: "x" } }, "string"],
    ["a small frozen value is parts", { data: Object.freeze({ a: 1 }), meta: {} }, "parts"],
    ["a frozen value of a few KB (a latest value) is parts", { data: history(40), meta: { generatedAt: "x" } }, "parts"],
    ["a frozen history between per-request members", { data: { ticker: "PMX-A", interval: "1h", count: large.length, points: large }, meta: { generatedAt: new Date().toISOString() } }, "parts"],
    ["a frozen data object with non-ASCII meta", { data: large, meta: { generatedAt: "é ü — non-ASCII" } }, "parts"],
    ["an unfrozen large member beside a frozen one", { data: { points: large, unfrozen: history(3000).slice() }, meta: {} }, "parts"],
  ];
  it.each(cases)("%s", (_name, value, kind) => {
    const chunks = jsonChunks(value);
    expect(typeof chunks === "string" ? "string" : "parts").toBe(kind);
    expect(text(chunks)).toBe(JSON.stringify(value));
  });

  it("the reused bytes are the same bytes in every body, never copied", () => {
    const value = (generatedAt: string) => ({ data: { points: large }, meta: { generatedAt } });
    const [a, b] = [jsonChunks(value("a")), jsonChunks(value("b"))] as Uint8Array[][];
    const reused = a!.filter((part) => b!.includes(part));
    expect(reused).toHaveLength(1);
    expect(Buffer.from(reused[0]!).toString("utf8")).toBe(JSON.stringify(large));
    expect(text(a!)).toBe(JSON.stringify(value("a")));
    expect(text(b!)).toBe(JSON.stringify(value("b")));
  });
});

describe("joinSmall: one buffer for a small body, the parts of a large one as they are", () => {
  const parts = (...sizes: number[]) => sizes.map((n, i) => Buffer.alloc(n, 97 + i));
  it.each([
    ["several parts below the limit are joined", parts(10, 700, 200), 1],
    ["one part is left as it is", parts(100), 1],
    ["parts of JOIN_BELOW bytes in all are not joined", parts(10, JOIN_BELOW - 20, 10), 3],
    ["no parts", parts(), 0],
  ] as const)("%s", (_name, given, count) => {
    const out = joinSmall(given);
    expect(out).toHaveLength(count);
    expect(Buffer.concat(out as Uint8Array[]).equals(Buffer.concat(given))).toBe(true);
    if (count === given.length) expect(out).toBe(given);
  });
});

describe("envelopeChunks is jsonChunks({ data, meta }) byte for byte", () => {
  const long = Object.freeze(Array.from({ length: 2_000 }, (_, i) => Object.freeze({ t: i, level: `${100 + i / 7}` })));
  const meta = { attribution: "a", generatedAt: "2026-11-24T07:00:00.000000Z", clamped: false, nested: { x: [1, null] } };
  const cases: Array<[string, unknown]> = [
    ["frozen data (a latest value)", Object.freeze({ ticker: "PMX-A", indexLevel: "101.25000000" })],
    ["unfrozen data holding a frozen history", { ticker: "PMX-A", count: long.length, points: long }],
    ["a long frozen array (streamed in parts)", long],
    ["null data", null],
    ["undefined data is left out", undefined],
  ];
  it.each(cases)("%s", (_name, data) => {
    const chunks = envelopeChunks(data, meta);
    const text = typeof chunks === "string" ? chunks : Buffer.concat(chunks).toString("utf8");
    expect(text).toBe(JSON.stringify({ data, meta }));
    expect(typeof chunks).toBe(typeof jsonChunks({ data, meta }));
  });

  it.each(cases)("%s, with meta given as its JSON text", (_name, data) => {
    const chunks = envelopeChunks(data, JSON.stringify(meta));
    const text = typeof chunks === "string" ? chunks : Buffer.concat(chunks).toString("utf8");
    expect(text).toBe(JSON.stringify({ data, meta }));
  });
});
