import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { applyRunEnvironment, baseUrl, newKey, testDb } from "../support/api";
import { waitFor } from "@/tests/support/wait-for";

// Success bodies are the read models' values in the envelope; these
// rules hold: the body is JSON.stringify's text, gzip decodes to the same
// JSON, and a changed value is served once the read model's short cache has expired.

let key = "";
let index = "";
let series = "";

beforeAll(async () => {
  key = (await newKey({ limitMinute: 100_000, limitDay: 1_000_000 })).key;
  index = (await get("/v1/indices")).json.data.indices.find(
    (i: { publicStatus: string }) => i.publicStatus === "active",
  ).ticker;
  series = (await get("/v1/volatility")).json.data.series[0].ticker;
});

async function get(path: string, headers: Record<string, string> = {}, instance = 0) {
  const res = await fetch(`${baseUrl(instance)}${path}`, { headers: { Authorization: `Bearer ${key}`, ...headers } });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { res, text, json: JSON.parse(text) as Record<string, any> };
}

/** The raw bytes as sent, without fetch's transparent decoding. */
async function rawGzip(path: string): Promise<{ encoding: string | null; vary: string | null; body: Buffer }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${baseUrl()}${path}`,
      { headers: { Authorization: `Bearer ${key}`, "Accept-Encoding": "gzip" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            encoding: res.headers["content-encoding"] ?? null,
            vary: (res.headers.vary as string | undefined) ?? null,
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
}

/** `data` without its per-request member (volatility history's windowStart follows the clock). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
const stable = (data: Record<string, any>) => ({ ...data, windowStart: undefined });

const paths = () => [
  `/v1/indices/${index}/latest`,
  `/v1/indices/${index}/history?interval=1h`,
  `/v1/indices/${index}/history?interval=1d`,
  `/v1/volatility/${series}/latest`,
  `/v1/volatility/${series}/history?limit=5000&includeGated=true`,
  "/v1/indices",
];

describe("a success body is JSON.stringify's text of the envelope, whatever part of it is reused", () => {
  it.each([0, 1, 2, 3, 4, 5])(
    "path %i: compact JSON with data then meta, and the same data on a repeated request",
    async (i) => {
      const path = paths()[i]!;
      const first = await get(path);
      expect(first.res.status).toBe(200);
      expect(first.res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(first.text).toBe(JSON.stringify(first.json));
      expect(Object.keys(first.json)).toEqual(["data", "meta"]);
      const second = await get(path);
      expect(second.text).toBe(JSON.stringify(second.json));
      expect(stable(second.json.data)).toEqual(stable(first.json.data));
      expect(second.json.meta.generatedAt >= first.json.meta.generatedAt).toBe(true);
    },
  );

  it("per-request meta is not reused: each history response reports its own window", async () => {
    const a = await get(`/v1/indices/${index}/history?interval=1h`);
    await waitFor("the clock to pass the first window's end", () => Date.now() > Date.parse(a.json.meta.effectiveEnd), {
      intervalMs: 1,
    });
    const b = await get(`/v1/indices/${index}/history?interval=1h`);
    expect(b.json.meta.effectiveEnd > a.json.meta.effectiveEnd).toBe(true);
    expect(b.json.meta.generatedAt >= a.json.meta.generatedAt).toBe(true);
  });
});

describe("compressed responses decode to the same JSON", () => {
  it.each([1, 4, 5])("path %i with Accept-Encoding: gzip", async (i) => {
    const path = paths()[i]!;
    const plain = await get(path);
    const gz = await rawGzip(path);
    expect(gz.encoding).toBe("gzip");
    expect(gz.vary ?? "").toContain("Accept-Encoding");
    const decoded = JSON.parse(gunzipSync(gz.body).toString("utf8"));
    expect(stable(decoded.data)).toEqual(stable(plain.json.data));
    expect(Object.keys(decoded.meta)).toEqual(Object.keys(plain.json.meta));
  });
});

describe("small bodies are not compressed", () => {
  it("a latest value under 1 KB is sent as is, with its Content-Length, to a client accepting gzip", async () => {
    const path = paths()[0]!;
    const plain = await get(path);
    expect(Number(plain.res.headers.get("content-length"))).toBe(Buffer.byteLength(plain.text));
    expect(Buffer.byteLength(plain.text)).toBeLessThan(1024);
    const gz = await rawGzip(path);
    expect(gz.encoding).toBeNull();
    expect(gz.vary ?? "").toContain("Accept-Encoding");
    expect(Object.keys(JSON.parse(gz.body.toString("utf8")))).toEqual(["data", "meta"]);
  });
});

describe("a reused body follows the data", () => {
  it("a level changed in the database is served by every instance within the read cache's lifetime", async () => {
    const prisma = await testDb();
    const path = `/v1/indices/${index}/history?interval=1h`;
    const before = (await get(path)).json.data.points as Array<{ t: string; indexLevel: string }>;
    const target = before[Math.floor(before.length / 2)]!;
    const row = await prisma.index.findFirstOrThrow({ where: { ticker: index }, select: { id: true } });
    const at = new Date(target.t);
    const original = await prisma.indexLevel.findFirstOrThrow({
      where: { indexId: row.id, t: at },
      select: { level: true },
    });
    const changed = original.level.plus(1);
    const served = async (instance: number) =>
      ((await get(path, {}, instance)).json.data.points as Array<{ t: string; indexLevel: string }>).find(
        (p) => p.t === target.t,
      )?.indexLevel;
    const servedEverywhere = async (expected: string) => {
      for (const instance of [0, 1])
        await waitFor(`instance ${instance} to serve ${expected}`, async () => (await served(instance)) === expected, {
          timeoutMs: 10_000,
          intervalMs: 200,
        });
    };
    await prisma.indexLevel.updateMany({ where: { indexId: row.id, t: at }, data: { level: changed } });
    try {
      await servedEverywhere(changed.toFixed(8));
    } finally {
      await prisma.indexLevel.updateMany({ where: { indexId: row.id, t: at }, data: { level: original.level } });
    }
    await servedEverywhere(original.level.toFixed(8));
  });

  it("while nothing changed, the read models serve the same frozen window after their cache is refreshed", async () => {
    // Only a version query runs when the cache ends (its 2-second lifetime, or cleared as here);
    // the window, and the JSON and gzip built for it, are kept (lib/data/read-cache.ts versioned).
    applyRunEnvironment();
    const { indexHistory } = await import("@/lib/data/indices");
    const { volatilityHistory } = await import("@/lib/data/volatility");
    const { createRoot } = await import("@/lib/root");
    const { config } = await import("@/lib/config");
    const { read, cache } = createRoot(config());
    const now = new Date();
    const window = { start: new Date(now.getTime() - 10 * 86_400_000), end: now };
    const levels = await indexHistory(read, index, { ...window, interval: "1h" });
    const ticks = await volatilityHistory(read, series, { ...window, limit: 5000, includeGated: false });
    cache.clear();
    expect((await indexHistory(read, index, { ...window, interval: "1h" }))!.points).toBe(levels!.points);
    expect((await volatilityHistory(read, series, { ...window, limit: 5000, includeGated: false }))!.points).toBe(
      ticks!.points,
    );
    expect(Object.isFrozen(levels!.points)).toBe(true);
  });
});
