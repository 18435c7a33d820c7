import { describe, expect, inject, it } from "vitest";
import { newKey, testDb } from "../support/api";
import { startServer } from "../support/server";

describe("graceful shutdown", () => {
  it("flushes pending usage before the process exits", async () => {
    const { key, id } = await newKey();
    const server = await startServer({
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: inject("redisUrl"),
      REDIS_PREFIX: inject("redisPrefix"),
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      METERING_FLUSH_MS: "600000",
    });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.baseUrl}/v1/downloads`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    }
    expect(await server.stop("SIGTERM")).toBe(0);
    const rows = await (await testDb()).usageCounter.findMany({ where: { keyId: id } });
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(3);
  });
});
