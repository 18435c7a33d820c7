import { describe, expect, test } from "vitest";
import { index, problemsOf, series } from "./fixtures";

// Every message an operator can get from the catalog schema: what is wrong, at which JSON path,
// in words that say how to mend it (never zod's "Invalid input").

const without = (o: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

const withIndex = (ix: unknown) => ({ version: 1, indices: [ix] });
const withSeries = (s: unknown) => ({ version: 1, indices: [index()], volatility: [s] });

const cases: Array<[string, unknown, string, string]> = [
  // missing required fields
  [
    "missing inceptionAt",
    withIndex(without(index(), "inceptionAt")),
    "$.indices[0].inceptionAt",
    "`inceptionAt` is required",
  ],
  ["missing ticker", withIndex(without(index(), "ticker")), "$.indices[0].ticker", "`ticker` is required"],
  [
    "missing maturityType (an enum)",
    withIndex(without(index(), "maturityType")),
    "$.indices[0].maturityType",
    "`maturityType` is required",
  ],
  ["missing universe", withIndex(without(index(), "universe")), "$.indices[0].universe", "`universe` is required"],
  [
    "missing universe venue",
    withIndex(index({ universe: { tagSlugs: ["fed"] } })),
    "$.indices[0].universe.venue",
    '`venue` is required (one of "demo", "polymarket", "kalshi")',
  ],
  ["missing version", { indices: [index()] }, "$.version", "`version` is required"],
  ["missing indices", { version: 1 }, "$.indices", "`indices` is required"],
  ["missing series event", withSeries(without(series(), "event")), "$.volatility[0].event", "`event` is required"],
  [
    "missing series venue (an enum)",
    withSeries(without(series(), "venue")),
    "$.volatility[0].venue",
    "`venue` is required",
  ],
  [
    "missing tenorsDays",
    withSeries(without(series(), "tenorsDays")),
    "$.volatility[0].tenorsDays",
    "`tenorsDays` is required",
  ],
  // wrong types
  [
    "inceptionAt as a number",
    withIndex(index({ inceptionAt: 1764547200 })),
    "$.indices[0].inceptionAt",
    'expected an ISO 8601 timestamp (e.g. "2026-12-01T00:00:00Z") or "start", got number',
  ],
  [
    "inceptionAt not a timestamp",
    withIndex(index({ inceptionAt: "yesterday" })),
    "$.indices[0].inceptionAt",
    'must be an ISO 8601 UTC timestamp (…Z) or "start"',
  ],
  [
    "listed as a string",
    withIndex(index({ listed: "yes" })),
    "$.indices[0].listed",
    "expected true or false, got string",
  ],
  [
    "maxSpread as a string",
    withIndex(index({ eligibility: { maxSpread: "0.1" } })),
    "$.indices[0].eligibility.maxSpread",
    "expected a number, got string",
  ],
  [
    "stalenessLimitSeconds not whole",
    withIndex(index({ stalenessLimitSeconds: 90.5 })),
    "$.indices[0].stalenessLimitSeconds",
    "expected a whole number, got 90.5",
  ],
  [
    "tagSlugs as a string",
    withIndex(index({ universe: { venue: "polymarket", tagSlugs: "fed" } })),
    "$.indices[0].universe.tagSlugs",
    "expected a list (JSON array), got string",
  ],
  ["indices as an object", { version: 1, indices: {} }, "$.indices", "expected a list (JSON array), got object"],
  ["the file as a list", [], "$", "expected an object, got array"],
  [
    "eligibility as null",
    withIndex(index({ eligibility: null })),
    "$.indices[0].eligibility",
    "expected an object, got null",
  ],
  // wrong values
  [
    "unknown maturityType",
    withIndex(index({ maturityType: "FOREVER" })),
    "$.indices[0].maturityType",
    'must be one of "PERPETUAL", "DATED", got "FOREVER"',
  ],
  [
    "unknown venue",
    withIndex(index({ universe: { venue: "betfair" } })),
    "$.indices[0].universe.venue",
    '`venue` must be one of "demo", "polymarket", "kalshi", got "betfair"',
  ],
  ["version 2", { version: 2, indices: [index()] }, "$.version", "must be 1, got 2"],
  [
    "negative depth",
    withIndex(index({ eligibility: { minDepthUsd: -5 } })),
    "$.indices[0].eligibility.minDepthUsd",
    "must be at least 0, got -5",
  ],
  [
    "zero spread",
    withIndex(index({ eligibility: { maxSpread: 0 } })),
    "$.indices[0].eligibility.maxSpread",
    "must be greater than 0, got 0",
  ],
  [
    "spread above 1",
    withIndex(index({ eligibility: { maxSpread: 2 } })),
    "$.indices[0].eligibility.maxSpread",
    "must be at most 1, got 2",
  ],
  ["empty name", withIndex(index({ name: "" })), "$.indices[0].name", "must not be empty"],
  [
    "long name",
    withIndex(index({ name: "x".repeat(121) })),
    "$.indices[0].name",
    "must be at most 120 characters long, got 121",
  ],
  ["no tenors", withSeries(series({ tenorsDays: [] })), "$.volatility[0].tenorsDays", "must list at least 1 item"],
  [
    "bad ticker",
    withIndex(index({ ticker: "pmx fed" })),
    "$.indices[0].ticker",
    "must be 2 to 32 upper-case letters, digits or dashes",
  ],
  // unknown keys
  [
    "an unknown field",
    withIndex(index({ colour: "red" })),
    "$.indices[0]",
    "unknown field `colour` (not part of the catalog format; check the spelling against /docs/catalog)",
  ],
  [
    "two unknown fields",
    withSeries(series({ tenor: 30, gate: {} })),
    "$.volatility[0]",
    "unknown fields `tenor`, `gate` (not part of the catalog format; check the spelling against /docs/catalog)",
  ],
  [
    "an unknown gate",
    withSeries(series({ gates: { depthFloor: 5 } })),
    "$.volatility[0].gates",
    "unknown field `depthFloor` (not part of the catalog format; check the spelling against /docs/catalog)",
  ],
];

describe("catalog problems an operator can read", () => {
  test.each(cases)("%s", (_name, catalog, path, reason) => {
    expect(problemsOf(catalog)).toContainEqual({ path, reason });
  });

  test("no message is zod's bare default", () => {
    const all = cases.flatMap(([, catalog]) => problemsOf(catalog));
    expect(all.length).toBeGreaterThanOrEqual(cases.length);
    for (const p of all) expect(p.reason, p.path).not.toMatch(/^Invalid|Unrecognized|received undefined/);
  });
});
