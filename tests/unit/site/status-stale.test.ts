import { describe, expect, it } from "vitest";
import { staleAt } from "@/lib/data/status";

// One staleness rule for index constituents (the index's limit) and volatility legs (the series'
// snapshot age gate): stale when the newest quote is older than the limit at the last computed hour.
describe("staleAt", () => {
  const hour = Date.UTC(2026, 10, 24, 7);
  const row = (id: string, lastSeen: number | null, limitSeconds: number) => ({
    id,
    lastSeen: lastSeen === null ? null : new Date(lastSeen),
    limitSeconds,
  });
  it.each<[string, ReturnType<typeof row>, boolean]>([
    ["quoted at the hour", row("a", hour, 60), false],
    ["exactly at the limit", row("b", hour - 7_200_000, 7200), false],
    ["one millisecond past the limit", row("c", hour - 7_200_001, 7200), true],
    ["an hour old under a 60 s gate", row("d", hour - 3_600_000, 60), true],
    ["never quoted", row("e", null, 7200), true],
    ["quoted after the hour (the collector ran ahead of the engine)", row("f", hour + 60_000, 60), false],
  ])("%s", (_name, r, stale) => {
    expect(staleAt([r], hour).length === 1).toBe(stale);
  });

  it("keeps the rows' order and fields", () => {
    const rows = [row("x", null, 60), row("y", hour, 60), row("z", hour - 120_000, 60)];
    expect(staleAt(rows, hour).map((r) => r.id)).toEqual(["x", "z"]);
  });
});
