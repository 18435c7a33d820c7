import { describe, expect, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { call, countedUsage, newKey, testDb } from "../support/api";

describe("usage metering", () => {
  it("counts every authenticated request per key, endpoint and status class, across instances", async () => {
    const { key, id } = await newKey({ limitMinute: 4 });
    await call("/v1", { key, instance: 0 });
    await call("/v1/indices", { key, instance: 1 });
    await call("/v1/indices/NOPE/latest", { key, instance: 0 });
    await call("/v1/indices", { key, instance: 1 });
    await call("/v1/indices", { key, instance: 0 }); // the fifth: 429
    const get = await countedUsage(id, 5);
    expect(get("/v1", "2xx")).toBe(1);
    expect(get("/v1/indices", "2xx")).toBe(2);
    expect(get("/v1/indices/{ticker}/latest", "4xx")).toBe(1);
    expect(get("/v1/indices", "429")).toBe(1);
  });

  it("records lastUsedAt on the key", async () => {
    const { key, id } = await newKey();
    await call("/v1", { key });
    const prisma = await testDb();
    const lastUsed = await waitFor(
      "the key's lastUsedAt",
      async () => (await prisma.apiKey.findUnique({ where: { id }, select: { lastUsedAt: true } }))?.lastUsedAt,
    );
    expect(lastUsed).toBeInstanceOf(Date);
  });
});
