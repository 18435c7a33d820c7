import fs from "node:fs";
import { describe, expect, test } from "vitest";
import { validateCatalog } from "@/lib/catalog/validate";
import { demoCatalogDefinitions } from "@/lib/ingest/catalog-apply";
import { demoVenueEvents, THEME_SCHEDULES } from "@/lib/ingest/demo-world";

const text = fs.readFileSync("catalog/demo.json", "utf8");

describe("catalog/demo.json is the demo's catalog", () => {
  test.each([
    [20261121, new Date("2026-07-27T05:00:00.000Z")],
    [7, new Date("2025-03-01T00:00:00.000Z")],
  ])(
    "seed %i from %s: every index selects a theme the demo venue lists, every series takes the legs of a demo partition",
    (seed, start) => {
      expect(validateCatalog("demo.json", text).indices.every((ix) => ix.universe.venue === "demo")).toBe(true);
      const { indices, series } = demoCatalogDefinitions(seed, start);
      const themes = new Set(THEME_SCHEDULES.map((s) => s.theme));
      expect(indices.map((ix) => ix.theme).filter((t) => !themes.has(t))).toEqual([]);
      expect(indices.every((ix) => ix.inceptionAt.getTime() === start.getTime())).toBe(true);
      const events = demoVenueEvents(seed, start);
      expect(series.length).toBe(events.size);
      for (const s of series) {
        const event = [...events.values()].find((e) => e.title && s.definitionLine.includes(`"${e.title}"`));
        expect(event, s.ticker).toBeDefined();
        expect(s.legs).toEqual(event!.legs);
        expect(s.settlementDate).toBe(event!.settlementDate);
      }
    },
  );
});

describe("catalog/example-venues.json", () => {
  test("the documented example on Polymarket and Kalshi is a valid catalog", () => {
    const c = validateCatalog("example-venues.json", fs.readFileSync("catalog/example-venues.json", "utf8"));
    expect(c.indices.map((ix) => ix.universe.venue)).toEqual(["polymarket", "polymarket", "kalshi"]);
    expect(c.volatility.map((s) => s.venue)).toEqual(["polymarket", "kalshi"]);
  });
});
