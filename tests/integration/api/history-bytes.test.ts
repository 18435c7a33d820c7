import http from "node:http";
import zlib from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { baseUrl, newKey, testDb } from "../support/api";

// Rule (lib/api/endpoints.ts, serializedOnce): a history's or a latest's `data` is serialized once
// per version of the read model and the envelope is built around it: a new level is served at once
// (no stale bytes), and the gzip and identity answers decode to the same JSON.

function rawGet(
  path: string,
  key: string,
  encoding: string,
): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${baseUrl()}${path}`,
      { headers: { authorization: `Bearer ${key}`, "accept-encoding": encoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
  });
}

const withoutTime = (body: { data: unknown; meta: Record<string, unknown> }) => ({
  data: body.data,
  meta: { ...body.meta, generatedAt: undefined },
});

const restores: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const restore of restores) await restore();
});

/** A listed index that is neither resolved nor ceased: the first by ticker, or the last. */
async function activeIndex(order: "ASC" | "DESC"): Promise<{ id: string; ticker: string }> {
  const [index] = await (
    await testDb()
  ).$queryRawUnsafe<Array<{ id: string; ticker: string }>>(
    `SELECT i.id, i.ticker FROM indices i WHERE i.listed AND i."resolvedAt" IS NULL AND i."ceasedAt" IS NULL ORDER BY i.ticker ${order} LIMIT 1`,
  );
  return index!;
}

/** Adds one to the stored level of `indexId` at `t` (undone after the file); the new level as the API writes it. */
async function bumpLevel(indexId: string, t: string, level: string): Promise<string> {
  const db = await testDb();
  const change = (delta: number) =>
    db.$executeRawUnsafe(
      `UPDATE index_levels SET level = level + $1 WHERE "indexId" = $2::uuid AND t = $3::timestamptz`,
      delta,
      indexId,
      new Date(t),
    );
  expect(await change(1)).toBe(1);
  restores.push(() => change(-1));
  return (Number(level) + 1).toFixed(8);
}

describe("90-day history bytes", () => {
  it("gzip and identity decode to the same JSON, and a changed level is served at once", async () => {
    const { key } = await newKey({ limitMinute: 1000 });
    const index = await activeIndex("ASC");
    // a fixed window (the default one ends now), so both answers' meta match but for generatedAt
    const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const path = `/v1/indices/${index.ticker}/history?interval=1h&start=${iso(end - 80 * 86_400_000)}&end=${iso(end)}`;
    const plain = await rawGet(path, key, "identity");
    const gzip = await rawGet(path, key, "gzip");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    const plainBody = JSON.parse(plain.body.toString("utf8"));
    const gzipBody = JSON.parse(zlib.gunzipSync(gzip.body).toString("utf8"));
    expect(plainBody.data.count).toBeGreaterThan(100);
    expect(withoutTime(gzipBody)).toEqual(withoutTime(plainBody));

    // A level inside the window changes: the next answers carry it, plain and gzip.
    const point = plainBody.data.points[10] as { t: string; indexLevel: string };
    const bumped = await bumpLevel(index.id, point.t, point.indexLevel);
    const levelAt = (body: { data: { points: Array<{ t: string; indexLevel: string }> } }) =>
      body.data.points.find((p) => p.t === point.t)?.indexLevel;
    const served = await waitFor("the changed level served", async () => {
      const body = JSON.parse((await rawGet(path, key, "identity")).body.toString("utf8"));
      return levelAt(body) === bumped && body;
    });
    const zipped = JSON.parse(zlib.gunzipSync((await rawGet(path, key, "gzip")).body).toString("utf8"));
    expect(levelAt(zipped)).toBe(bumped);
    expect(zipped.data).toEqual(served.data);
  });

  it("a latest: gzip and identity decode to the same JSON, and a changed level is served within the cache's 2 s", async () => {
    const { key } = await newKey({ limitMinute: 1000 });
    const index = await activeIndex("DESC"); // the history case above changes the first one's
    const read = async (path: string, encoding: string) => {
      const answer = await rawGet(path, key, encoding);
      const gzipped = answer.headers["content-encoding"] === "gzip";
      const body = JSON.parse((gzipped ? zlib.gunzipSync(answer.body) : answer.body).toString("utf8"));
      return { gzipped, bytes: answer.body.length, body };
    };
    // A volatility latest (several KB) is gzipped for a gzip client; an index latest near 1 KB may not be (COMPRESS_AT).
    const series = (await read("/v1/volatility", "identity")).body.data.series[0].ticker as string;
    for (const path of [`/v1/volatility/${series}/latest`, `/v1/indices/${index.ticker}/latest`]) {
      const plain = await read(path, "identity");
      const gzip = await read(path, "gzip");
      expect(plain.gzipped).toBe(false);
      expect(gzip.gzipped).toBe(plain.bytes >= 1024);
      expect(withoutTime(gzip.body)).toEqual(withoutTime(plain.body));
    }

    const path = `/v1/indices/${index.ticker}/latest`;
    const plain = await read(path, "identity");
    const latest = plain.body.data as { computedAt: string; indexLevel: string };
    const bumped = await bumpLevel(index.id, latest.computedAt, latest.indexLevel);
    const served = await waitFor("the changed latest level served", async () => {
      const { body } = await read(path, "identity");
      return body.data.indexLevel === bumped && body;
    });
    const zipped = await read(path, "gzip");
    expect(zipped.body.data).toEqual(served.data);
  });
});
