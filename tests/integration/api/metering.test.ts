import { describe, expect, it } from "vitest";
import { call, newKey, testDb } from "../support/api";

async function usage(keyId: string) {
  const prisma = await testDb();
  return prisma.usageCounter.findMany({ where: { keyId }, select: { endpoint: true, statusClass: true, count: true } });
}

describe("usage metering", () => {
  it("counts every authenticated request per key, endpoint and status class, across instances", async () => {
    const { key, id } = await newKey({ limitMinute: 4 });
    await call("/v1", { key, instance: 0 });
    await call("/v1/indices", { key, instance: 1 });
    await call("/v1/indices/NOPE/latest", { key, instance: 0 });
    await call("/v1/indices", { key, instance: 1 });
    await call("/v1/indices", { key, instance: 0 }); // the fifth: 429
    let rows: Awaited<ReturnType<typeof usage>> = [];
    for (let i = 0; i < 40; i++) {
      rows = await usage(id);
      if (rows.reduce((n, r) => n + r.count, 0) >= 5) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const get = (endpoint: string, statusClass: string) =>
      rows.find((r) => r.endpoint === endpoint && r.statusClass === statusClass)?.count ?? 0;
    expect(get("/v1", "2xx")).toBe(1);
    expect(get("/v1/indices", "2xx")).toBe(2);
    expect(get("/v1/indices/{ticker}/latest", "4xx")).toBe(1);
    expect(get("/v1/indices", "429")).toBe(1);
  });

  it("records lastUsedAt on the key", async () => {
    const { key, id } = await newKey();
    await call("/v1", { key });
    const prisma = await testDb();
    let lastUsed: Date | null = null;
    for (let i = 0; i < 40 && !lastUsed; i++) {
      lastUsed = (await prisma.apiKey.findUnique({ where: { id }, select: { lastUsedAt: true } }))?.lastUsedAt ?? null;
      if (!lastUsed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(lastUsed).toBeInstanceOf(Date);
  });
});
