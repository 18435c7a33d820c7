import Decimal from "decimal.js";
import { describe, expect, test } from "vitest";
import type { IndexDefinition, Snapshot } from "@/lib/engine/types";
import { computeHour, type EngineCatalog, type EngineStates } from "@/lib/ingest/engine-hour";
import { StoredFeed } from "@/lib/ingest/stored-feed";

const H = 3_600_000;
const t0 = new Date("2026-11-01T00:00:00Z");
const at = (h: number) => new Date(t0.getTime() + h * H);
const market = (id: string, listedH: number, resolvedH: number | null = null) => ({
  conditionId: id,
  label: id,
  legKey: null,
  eventKey: id,
  theme: "",
  selectors: ["polymarket:tag:crypto"],
  settlementDate: new Date("2026-12-31T00:00:00Z"),
  listedAt: at(listedH),
  resolvedAt: resolvedH === null ? null : at(resolvedH),
  outcome: null,
});
const snap = (id: string, h: number, mid: string): Snapshot => ({
  observedAt: at(h),
  conditionId: id,
  legKey: null,
  label: id,
  bestBid: new Decimal(mid).minus("0.01"),
  bestAsk: new Decimal(mid).plus("0.01"),
  mid: new Decimal(mid),
  depthUsd: new Decimal(1000),
  settlementDate: null,
  resolved: false,
  outcome: null,
});

describe("stored feed", () => {
  test("its universe is the markets listed by the hour, resolved ones for 24 hours more", () => {
    const feed = new StoredFeed(at(0), null, [market("a", 0), market("b", 2), market("c", 0, 1)]);
    const ids = (n: number) =>
      Array.from({ length: n }, () =>
        feed
          .advance()
          .universe.map((m) => m.conditionId)
          .join(","),
      );
    expect(ids(3)).toEqual(["a,c", "a,c", "a,b,c"]);
    for (let i = 0; i < 21; i++) feed.advance();
    expect(feed.cursor()).toEqual(at(23));
    expect(feed.advance().universe.map((m) => m.conditionId)).toEqual(["a", "b", "c"]);
    expect(feed.advance().universe.map((m) => m.conditionId)).toEqual(["a", "b"]);
    expect(feed.state()).toEqual({ feed: "stored", start: at(0).toISOString(), hour: at(25).toISOString() });
  });
});

describe("venue catalogs in the engine", () => {
  const def: IndexDefinition = {
    ticker: "PMX-T",
    name: "T",
    description: "",
    theme: "",
    inceptionAt: at(0),
    maturityType: "PERPETUAL",
    methodologyVersion: "idx-1.0",
    stalenessLimitSeconds: 7200,
    eligibility: {
      theme: "",
      eventKeyPrefix: null,
      includePartitionLegs: false,
      selectors: ["polymarket:tag:crypto"],
      minDepthUsd: 0,
      maxSpread: 1,
    },
    listed: true,
  };
  const catalog = (over: Partial<IndexDefinition> = {}): EngineCatalog => ({
    indices: [{ ...def, ...over }],
    series: [],
    deferEmptyInception: true,
    indexIds: new Map([["PMX-T", "id"]]),
    seriesIds: new Map(),
  });
  const universe = [market("a", 0)];

  test("an index is not incepted before some market of its universe is priced, then starts at 100", () => {
    const states: EngineStates = { indices: new Map(), series: new Map() };
    expect(computeHour(catalog(), states, at(0), [], universe).levels).toEqual([]);
    expect(states.indices.get("PMX-T") ?? null).toBeNull();
    const out = computeHour(catalog(), states, at(1), [snap("a", 1, "0.40")], universe);
    expect(out.levels.map((l) => l.level)).toEqual(["100.00000000"]);
  });

  test("a market outside the rule's selectors never enters", () => {
    const states: EngineStates = { indices: new Map(), series: new Map() };
    const other = [{ ...market("x", 0), selectors: ["kalshi:series:KX"] }];
    expect(computeHour(catalog(), states, at(0), [snap("x", 0, "0.4")], other).levels).toEqual([]);
  });

  test("an index removed from the catalog computes nothing from its ceasing hour", () => {
    const states: EngineStates = { indices: new Map(), series: new Map() };
    computeHour(catalog({ ceasedAt: at(2) }), states, at(1), [snap("a", 1, "0.40")], universe);
    expect(computeHour(catalog({ ceasedAt: at(2) }), states, at(2), [snap("a", 2, "0.45")], universe).levels).toEqual(
      [],
    );
  });
});
