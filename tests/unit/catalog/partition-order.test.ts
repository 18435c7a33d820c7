import fs from "node:fs";
import { describe, expect, test } from "vitest";
import { catalogSchema } from "@/lib/catalog/schema";
import { upgradeVolVersion, VOL_METHODOLOGY_BASE } from "@/lib/catalog/compile";
import { validateCatalog } from "@/lib/catalog/validate";
import { demoCatalogDefinitions } from "@/lib/ingest/catalog-apply";
import { PARTITIONS } from "@/lib/ingest/demo-world";

// Rule (catalog, `partitionOrder`): the catalog declares which partitions are ordered (their legs,
// in the event's order, are consecutive intervals of one quantity); the engine prices those by
// the cumulative form. The demo's simulator is the truth: its threshold events are intervals of
// one factor, its share events are not.

const text = fs.readFileSync("catalog/demo.json", "utf8");

describe("partition order in the catalog", () => {
  test("the demo declares exactly its threshold partitions ordered (PMV-FED, PMV-BTCRANGE, PMV-STORMS) and its share partitions unordered", () => {
    const catalog = validateCatalog("demo.json", text);
    for (const s of catalog.volatility) {
      const spec = PARTITIONS.find((p) => p.eventKey === s.event);
      expect(spec, s.ticker).toBeDefined();
      expect(s.partitionOrder, s.ticker).toBe(spec!.model.kind === "threshold" ? "ordered" : "unordered");
    }
    expect(
      catalog.volatility
        .filter((s) => s.partitionOrder === "ordered")
        .map((s) => s.ticker)
        .sort(),
    ).toEqual(["PMV-BTCRANGE", "PMV-FED", "PMV-STORMS"]);
  });

  test("the compiled definitions carry it to the engine, with the engine's methodology version", () => {
    const { series } = demoCatalogDefinitions(20261121, new Date("2026-07-31T09:00:00Z"));
    expect(Object.fromEntries(series.map((s) => [s.ticker, s.partitionOrder]))).toMatchObject({
      "PMV-FED": "ordered",
      "PMV-NOMINEE": "unordered",
    });
    expect(new Set(series.map((s) => s.methodologyVersion))).toEqual(new Set([VOL_METHODOLOGY_BASE]));
    expect(VOL_METHODOLOGY_BASE).toBe("vol-2.0");
  });

  test("absent means unordered; anything but the two words is refused", () => {
    const base = JSON.parse(text) as { volatility: Array<Record<string, unknown>> };
    const entry = { ...base.volatility[0] };
    delete entry.partitionOrder;
    expect(catalogSchema.parse({ ...base, volatility: [entry] }).volatility[0]?.partitionOrder).toBe("unordered");
    expect(catalogSchema.safeParse({ ...base, volatility: [{ ...entry, partitionOrder: "sorted" }] }).success).toBe(
      false,
    );
  });

  test("a series on an earlier major methodology moves to the engine's; later ones keep theirs", () => {
    expect(upgradeVolVersion("vol-1.0")).toBe("vol-2.0");
    expect(upgradeVolVersion("vol-1.7")).toBe("vol-2.0");
    expect(upgradeVolVersion("vol-2.0")).toBe("vol-2.0");
    expect(upgradeVolVersion("vol-2.3")).toBe("vol-2.3");
  });
});
