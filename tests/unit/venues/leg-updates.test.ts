import Decimal from "decimal.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_GATES } from "@/lib/catalog/compile";
import type { Snapshot } from "@/lib/engine/types";
import { legsInForce, updateLegWindows } from "@/lib/engine/volatility/legs";
import type { Component, LegWindow, VolSeriesDefinition } from "@/lib/engine/volatility/types";
import { computeHour, type EngineCatalog, type EngineStates } from "@/lib/ingest/engine-hour";
import { VenueHttp } from "@/lib/venues/http";
import { KalshiConnector } from "@/lib/venues/kalshi";
import { PolymarketConnector } from "@/lib/venues/polymarket";
import { startFakeVenues, type FakeVenues } from "../../support/fake-venues";

// A volatility series' legs follow its venue event: an outcome the venue lists after discovery
// joins from the hour it is first read, an outcome the event no longer lists leaves at that hour,
// one resolved NO is marked at 0 for its hour and leaves from the next. Hours before a change keep
// the leg set they were computed with.

const H = 3_600_000;
const t0 = new Date("2026-11-01T00:00:00Z");
const at = (h: number) => new Date(t0.getTime() + h * H);
const END = "2026-12-10T00:00:00Z";

let fake: FakeVenues;
beforeEach(async () => {
  fake = await startFakeVenues();
});
afterEach(async () => fake.close());
const http = (venue: string) =>
  new VenueHttp({ venue, concurrency: 2, timeoutMs: 2000, backoffMs: 1, sleep: async () => undefined });

describe("leg windows from venue event reads", () => {
  test("Polymarket neg-risk event: a market added later joins, a removed one leaves, one resolved NO leaves the hour after", async () => {
    const market = (g: string) => ({
      conditionId: `0x${g.toLowerCase()}`,
      question: `Fed: ${g}?`,
      groupItemTitle: g,
      yesToken: `tok-${g.toLowerCase()}`,
      endDate: END,
    });
    const event = {
      slug: "fed-december",
      title: "Fed decision in December",
      negRisk: true,
      tags: ["economy"],
      endDate: END,
      markets: ["Cut", "Hold", "Hike"].map(market),
    };
    fake.poly.events.push(event);
    const pm = new PolymarketConnector(http("polymarket"), fake.gammaUrl, fake.clobUrl);
    const first = (await pm.event("fed-december"))!.legs;
    const discovered = first.map((l) => l.conditionId);
    expect(updateLegWindows([], discovered, first, at(0))).toMatchObject({ added: [], removed: [] });

    event.markets.push(market("Pause"));
    const added = updateLegWindows([], discovered, (await pm.event("fed-december"))!.legs, at(2));
    expect(added.added).toEqual(["0xpause"]);
    expect(added.windows).toEqual([
      { conditionId: "0xcut", from: null, until: null },
      { conditionId: "0xhold", from: null, until: null },
      { conditionId: "0xhike", from: null, until: null },
      { conditionId: "0xpause", from: at(2).toISOString(), until: null },
    ]);
    // the same read an hour later changes nothing
    expect(updateLegWindows(added.windows, [], (await pm.event("fed-december"))!.legs, at(3))).toMatchObject({
      added: [],
      removed: [],
    });

    event.markets = event.markets.filter((m) => m.conditionId !== "0xhold");
    const hike = event.markets.find((m) => m.conditionId === "0xhike")!;
    Object.assign(hike, { closed: true, outcomePrices: ["0", "1"] });
    const after = updateLegWindows(added.windows, [], (await pm.event("fed-december"))!.legs, at(4));
    expect(after.removed.sort()).toEqual(["0xhike", "0xhold"]);
    expect(after.windows.find((w) => w.conditionId === "0xhold")?.until).toBe(at(4).toISOString());
    expect(after.windows.find((w) => w.conditionId === "0xhike")?.until).toBe(at(5).toISOString());
    const def = { legs: [], legWindows: after.windows };
    expect(legsInForce(def, at(1))).toEqual(["0xcut", "0xhold", "0xhike"]);
    expect(legsInForce(def, at(2))).toEqual(["0xcut", "0xhold", "0xhike", "0xpause"]);
    expect(legsInForce(def, at(4))).toEqual(["0xcut", "0xhike", "0xpause"]);
    expect(legsInForce(def, at(5))).toEqual(["0xcut", "0xpause"]);

    // a leg that left does not come back when the venue lists it again
    event.markets.push(market("Hold"));
    expect(updateLegWindows(after.windows, [], (await pm.event("fed-december"))!.legs, at(6)).added).toEqual([]);
  });

  test("Kalshi mutually exclusive event: a market added later joins, a finalized NO leaves the hour after", async () => {
    const m = (sfx: string, sub: string, extra: Record<string, string> = {}) => ({
      ticker: `KXFED-26DEC-${sfx}`,
      title: sub,
      yes_sub_title: sub,
      status: "active",
      close_time: END,
      ...extra,
    });
    const event = {
      event_ticker: "KXFED-26DEC",
      series_ticker: "KXFED",
      title: "Fed decision in December",
      mutually_exclusive: true,
      markets: [m("C25", "Cut 25bps"), m("H0", "Hold")],
    };
    fake.kalshi.events.push(event);
    const k = new KalshiConnector(http("kalshi"), fake.kalshiUrl);
    const discovered = (await k.event("KXFED-26DEC"))!.legs.map((l) => l.conditionId);
    event.markets.push(m("C50", "Cut 50bps"));
    Object.assign(event.markets[1]!, { status: "finalized", result: "no" });
    const next = updateLegWindows([], discovered, (await k.event("KXFED-26DEC"))!.legs, at(1));
    expect(next.added).toEqual(["kalshi:KXFED-26DEC-C50"]);
    expect(next.removed).toEqual(["kalshi:KXFED-26DEC-H0"]);
    expect(legsInForce({ legs: [], legWindows: next.windows }, at(1))).toEqual([
      "kalshi:KXFED-26DEC-C25",
      "kalshi:KXFED-26DEC-H0",
      "kalshi:KXFED-26DEC-C50",
    ]);
    expect(legsInForce({ legs: [], legWindows: next.windows }, at(2))).toEqual([
      "kalshi:KXFED-26DEC-C25",
      "kalshi:KXFED-26DEC-C50",
    ]);
  });

  test("a market the venue lists already resolved never joins", () => {
    const r = updateLegWindows(
      [],
      ["a", "b"],
      [
        { conditionId: "a", resolved: false, outcome: null },
        { conditionId: "b", resolved: false, outcome: null },
        { conditionId: "c", resolved: true, outcome: 0 },
      ],
      at(1),
    );
    expect(r).toMatchObject({ added: [], removed: [] });
  });
});

describe("the engine computes each hour with the legs in force", () => {
  const snap = (id: string, h: number, mid: string, resolved = false): Snapshot => ({
    observedAt: at(h),
    conditionId: id,
    legKey: id,
    label: id,
    bestBid: new Decimal(mid).minus(resolved ? 0 : "0.01"),
    bestAsk: new Decimal(mid).plus(resolved ? 0 : "0.01"),
    mid: new Decimal(mid),
    depthUsd: new Decimal(resolved ? 0 : 5000),
    settlementDate: new Date(END),
    resolved,
    outcome: resolved ? 0 : null,
  });
  const base: VolSeriesDefinition = {
    ticker: "PMV-T",
    slug: "t",
    name: "T",
    description: "",
    category: "macro",
    productFamily: "PM Volatility",
    targetType: "composite-of-partition",
    units: "probability points",
    definitionLine: "",
    headlineTenorDays: 30,
    tenorsDays: [7, 30],
    inceptionAt: at(0),
    settlementDate: "2026-12-10",
    listed: true,
    methodologyUrl: "/docs/methodology#volatility",
    relatedIndexTickers: [],
    gates: DEFAULT_GATES,
    legs: ["a", "b", "c"],
    methodologyVersion: "vol-1.0",
  };
  const mids: Record<string, string[]> = {
    a: ["0.5", "0.48", "0.46", "0.45", "0.45", "0.44"],
    b: ["0.3", "0.3", "0.28", "0.25", "0", "0"],
    c: ["0.2", "0.22", "0.2", "0.22", "0.4", "0.4"],
    d: ["", "", "0.06", "0.08", "0.15", "0.16"],
  };
  const hourSnaps = (h: number) =>
    Object.entries(mids)
      .filter(([, v]) => v[h] !== "")
      .map(([id, v]) => snap(id, h, v[h]!, id === "b" && h >= 4));
  const run = (def: VolSeriesDefinition, hours: number) => {
    const catalog: EngineCatalog = {
      indices: [],
      series: [def],
      indexIds: new Map(),
      seriesIds: new Map([["PMV-T", "sid"]]),
    };
    const states: EngineStates = { indices: new Map(), series: new Map() };
    return Array.from({ length: hours }, (_, h) => computeHour(catalog, states, at(h), hourSnaps(h), []).ticks[0]!);
  };
  const legsOf = (tick: { components: unknown }) => (tick.components as Component[]).map((c) => c.condition_id);

  test("a leg that joins is priced from its first hour on; the hours before are what they were without it", () => {
    // d is listed from hour 2; b resolves NO at hour 4 and leaves from hour 5
    const windows: LegWindow[] = [
      { conditionId: "a", from: null, until: null },
      { conditionId: "b", from: null, until: at(5).toISOString() },
      { conditionId: "c", from: null, until: null },
      { conditionId: "d", from: at(2).toISOString(), until: null },
    ];
    const withWindows = run({ ...base, legs: ["a", "c", "d"], legWindows: windows }, 6);
    const fixed = run(base, 2);
    expect(withWindows.slice(0, 2)).toEqual(fixed);
    expect(withWindows.map(legsOf)).toEqual([
      ["a", "b", "c"],
      ["a", "b", "c"],
      ["a", "b", "c", "d"],
      ["a", "b", "c", "d"],
      ["a", "b", "c", "d"],
      ["a", "c", "d"],
    ]);
    expect(withWindows.map((t) => t.compositionVersion)).toEqual(["v1", "v1", "v2", "v2", "v2", "v3"]);
    // resolved NO: marked at 0 in its hour, gone the hour after, the partition still sums to 1
    expect((withWindows[4]!.components as unknown as Component[]).find((c) => c.condition_id === "b")?.p).toBe(0);
    expect((withWindows[5]!.components as unknown as Component[]).reduce((s, c) => s + c.p, 0)).toBeCloseTo(1, 6);
    // the joining leg is quoted, so the partition is complete: no leg_missing
    for (const t of withWindows) expect(JSON.stringify(t.gateFlags)).not.toContain("leg_missing");
    // had the new leg been kept out, hour 2 would be a different number
    expect(run(base, 3)[2]!.headlinePts).not.toBe(withWindows[2]!.headlinePts);
  });
});
