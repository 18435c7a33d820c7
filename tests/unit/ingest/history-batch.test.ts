import { describe, expect, it } from "vitest";
import { historyBatchSize } from "@/lib/ingest/back-calculate";

// Rule (back-calculation): the markets read and stored together hold at most about 200,000 hourly
// prices, in whole Polymarket requests of 20 tokens, between 20 and 200 markets.

describe("history batch size", () => {
  it("200 markets up to 1,000 hours, fewer for longer spans, never under 20", () => {
    expect([72, 240, 1_000, 2_160, 8_760].map(historyBatchSize)).toEqual([200, 200, 200, 80, 20]);
    for (const hours of [1, 500, 2_160, 5_000]) expect(historyBatchSize(hours) % 20).toBe(0);
  });
});
