import { describe, expect, test } from "vitest";
import type { Tick } from "@/lib/data/volatility";
import { LEG_GATES } from "@/lib/engine/volatility/gates";
import { GATE_MEANING, gateMeaning } from "@/lib/site/gates";
import { counterfactualTenor, shownTick, termStructure } from "@/lib/site/volatility-value";

const tick = (over: Partial<Tick>): Tick =>
  ({
    headlinePts: 10,
    headlineTenorDays: 30,
    publicationState: "published",
    status: "ok",
    tenors: {},
    labels: { clockHomogeneityDisclosure: "", tier: {} },
    counterfactual: { headlinePts: 10, anchorFingerprint: "x" },
    ...over,
  }) as Tick;

describe("the value the public surface shows", () => {
  const newest = tick({ headlinePts: 11, publicationState: "withheld", status: "suspended" });
  const published = tick({ headlinePts: 9 });

  test.each([
    [
      "published newest tick",
      { tick: tick({ headlinePts: 12 }), published: null, publicationState: "published" },
      12,
      "tick",
    ],
    [
      "withheld newest tick: the last published one",
      { tick: newest, published, publicationState: "withheld" },
      9,
      "published",
    ],
    [
      "withheld with nothing published (not served by the API)",
      { tick: newest, published: null, publicationState: "withheld" },
      11,
      "tick",
    ],
  ] as const)("%s", (_name, latest, pts, source) => {
    const shown = shownTick(latest);
    expect(shown.tick.headlinePts).toBe(pts);
    expect(shown.source).toBe(source);
  });
});

describe("term structure", () => {
  test("sorted by tenor, with tiers and the headline marked", () => {
    const rows = termStructure(
      tick({
        headlineTenorDays: 30,
        tenors: {
          "90": { pts: 50, share: 0.9, share_ci: null, share_meta: { ci_unavailable: true, mixture: false } },
          "7": { pts: 10, share: 0.1, share_ci: [0.05, 0.2], share_meta: { ci_unavailable: false, mixture: false } },
          "30": { pts: 30, share: 0.4, share_ci: [0.3, 0.5], share_meta: { ci_unavailable: false, mixture: false } },
        },
        labels: {
          clockHomogeneityDisclosure: "",
          clockSpeed: {},
          attrDeltaFrom: null,
          attrDeltaFromPublished: null,
          composition: { leg_keys: [], n: 0, version: "" },
          devigVersion: "",
          tier: { "7": "historical-clock", "30": "budget-implied", R: "budget-implied" },
        },
      }),
    );
    expect(rows.map((r) => [r.tenorDays, r.pts, r.headline, r.tier, r.shareCi])).toEqual([
      [7, 10, false, "historical-clock", [0.05, 0.2]],
      [30, 30, true, "budget-implied", [0.3, 0.5]],
      [90, 50, false, null, null],
    ]);
  });

  test.each([
    [{ headlinePts: 38.98, tenors: { "7": { pts: 17.8 }, "30": { pts: 38.98 } } }, 30, 30],
    [{ headlinePts: 17.8, tenors: { "7": { pts: 17.8 }, "30": { pts: 38.98 } } }, 30, 7],
    [{ headlinePts: 1, tenors: {} }, 30, 30],
  ])("frozen-inception headline tenor %#", (cf, fallback, expected) => {
    expect(counterfactualTenor(cf, fallback)).toBe(expected);
  });
});

describe("gate meanings", () => {
  test.each([
    ...LEG_GATES,
    "overround",
    "underround",
    "snapshot_skew",
    "arbitrage",
    "devig",
    "pythagorean",
    "identity",
    "failing_budget_share",
  ])("%s has a plain-language meaning", (gate) => {
    expect(GATE_MEANING[gate]).toBeTruthy();
  });
  test("an unknown gate still reads as a sentence", () => {
    expect(gateMeaning("new_gate")).toMatch(/\.$/);
  });
});
