import fs from "node:fs";
import { describe, expect, test } from "vitest";
import { compileIndex, compileSeries } from "@/lib/catalog/compile";
import { validateCatalog } from "@/lib/catalog/validate";
import { demoVenueEvents, indexDefinitions, volatilityDefinitions } from "@/lib/ingest/demo-catalog";

const text = fs.readFileSync("catalog/demo.json", "utf8");

describe("catalog/demo.json is the demo's catalog", () => {
  test.each([
    [20261121, new Date("2026-07-27T05:00:00.000Z")],
    [7, new Date("2025-03-01T00:00:00.000Z")],
  ])("seed %i from %s: the file compiles to exactly the five indices and five series of the simulator", (seed, start) => {
    const catalog = validateCatalog("demo.json", text);
    const ctx = { start, events: demoVenueEvents(seed, start) };
    expect(catalog.indices.map((ix) => compileIndex(ix, ctx))).toEqual(indexDefinitions(start));
    expect(catalog.volatility.map((s) => compileSeries(s, ctx))).toEqual(volatilityDefinitions(seed, start));
  });
});

describe("catalog/example-venues.json", () => {
  test("the documented example on Polymarket and Kalshi is a valid catalog", () => {
    const c = validateCatalog("example-venues.json", fs.readFileSync("catalog/example-venues.json", "utf8"));
    expect(c.indices.map((ix) => ix.universe.venue)).toEqual(["polymarket", "polymarket", "kalshi"]);
    expect(c.volatility.map((s) => s.venue)).toEqual(["polymarket", "kalshi"]);
  });
});
