import { describe, expect, test } from "vitest";
import { catalogHash, compileIndex, bumpVersion } from "@/lib/catalog/compile";
import { validateCatalog } from "@/lib/catalog/validate";
import { index, problemsOf, series as baseSeries } from "./fixtures";

const series = (over: Record<string, unknown> = {}) => baseSeries({ relatedIndexTickers: ["PMX-FED"], ...over });
const text = (c: unknown) => JSON.stringify(c);
describe("catalog validation", () => {
  test("a valid catalog parses with the documented defaults", () => {
    const c = validateCatalog("c.json", text({ version: 1, indices: [index()], volatility: [series()] }));
    expect(c.indices[0]!.eligibility).toEqual({
      minDepthUsd: 0,
      maxSpread: 1,
      minDaysToSettlement: 0,
      maxDaysToSettlement: null,
      includePartitionLegs: false,
    });
    expect(c.indices[0]!.stalenessLimitSeconds).toBe(7200);
    expect(c.volatility[0]!.gates).toEqual({});
  });

  test("every problem is listed with its JSON path and reason, not only the first", () => {
    const problems = problemsOf({
      version: 1,
      indices: [
        index({ ticker: "bad ticker", eligibility: { maxSpread: 2, minDaysToSettlement: 5, maxDaysToSettlement: 2 } }),
        index({ universe: { venue: "kalshi" }, colour: "red" }),
      ],
      volatility: [series({ headlineTenorDays: 90, relatedIndexTickers: ["PMX-NONE"] })],
    });
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "$.indices[0].ticker",
        "$.indices[0].eligibility.maxSpread",
        "$.indices[1]",
        "$.indices[1].universe",
      ]),
    );
    expect(problems.find((p) => p.path === "$.indices[1]")?.reason).toMatch(/^unknown field `colour`/);
  });

  test("cross-entry rules: duplicates, the headline tenor, references, min and max days, mixing the demo with venues", () => {
    const problems = problemsOf({
      version: 1,
      indices: [
        index(),
        index({ eligibility: { minDaysToSettlement: 5, maxDaysToSettlement: 2 } }),
        index({ ticker: "PMX-D", universe: { venue: "demo", theme: "macro" } }),
      ],
      volatility: [series({ headlineTenorDays: 90, relatedIndexTickers: ["PMX-NONE"] })],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "$.indices[1].ticker", reason: "duplicate ticker PMX-FED (first at $.indices[0].ticker)" },
        { path: "$.indices[1].eligibility.maxDaysToSettlement", reason: "is below minDaysToSettlement (5)" },
        { path: "$.volatility[0].headlineTenorDays", reason: "90 is not one of tenorsDays (7, 30)" },
        { path: "$.volatility[0].relatedIndexTickers[0]", reason: "no index PMX-NONE in this catalog" },
        {
          path: "$.indices[0].universe.venue",
          reason: "a catalog is either the demo's (venue demo) or of real venues; it cannot mix both",
        },
      ]),
    );
  });

  test("a file that is not JSON is one problem at $", () => {
    expect(problemsOf("{ nope")).toEqual([{ path: "$", reason: expect.stringMatching(/^not JSON: /) }]);
  });

  test("the hash ignores formatting and key order; the rule compiles to venue selectors and quote filters", () => {
    const a = validateCatalog("a.json", JSON.stringify({ version: 1, indices: [index()] }, null, 2));
    const b = validateCatalog(
      "b.json",
      JSON.stringify({ indices: [Object.fromEntries(Object.entries(index()).reverse())], version: 1 }),
    );
    expect(catalogHash(a)).toBe(catalogHash(b));
    const def = compileIndex(a.indices[0]!, { start: new Date(0), events: new Map() });
    expect(def.eligibility).toMatchObject({ selectors: ["polymarket:tag:fed"], minDepthUsd: 0, maxSpread: 1 });
    expect(bumpVersion("idx-1.0")).toBe("idx-1.1");
    expect(bumpVersion("vol-1.9")).toBe("vol-1.10");
  });
});
