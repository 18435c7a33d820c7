import { beforeAll, describe, expect, test } from "vitest";
import { stepIndex } from "@/lib/engine/index-level";
import type { IndexState, ReconstitutionRecord, Snapshot } from "@/lib/engine/types";
import { stepVolatility } from "@/lib/engine/volatility/step-volatility";
import type { VolState, VolStatus } from "@/lib/engine/volatility/types";
import { demoCatalogDefinitions } from "@/lib/ingest/catalog-apply";
import { createDemoMarket, type DemoMarket } from "@/lib/ingest/demo-market";

const HOURS = 120 * 24;

interface RunSummary {
  demo: DemoMarket;
  /** catalog/demo.json's indices and series on this demo */
  defs: ReturnType<typeof demoCatalogDefinitions>;
  reconstitutions: Map<string, ReconstitutionRecord[]>;
  indexStates: Map<string, IndexState>;
  staleLevels: Map<string, number>;
  statuses: Map<string, Record<VolStatus, number>>;
  volStates: Map<string, VolState>;
  observed: Snapshot[][];
  missingHours: number;
  elapsedMs: number;
}

let run: RunSummary;

beforeAll(() => {
  const began = Date.now();
  const demo = createDemoMarket({ seed: 20250101, start: new Date("2025-01-01T00:00:00.000Z") });
  const defs = demoCatalogDefinitions(demo.seed, demo.start);
  const reconstitutions = new Map<string, ReconstitutionRecord[]>(defs.indices.map((d) => [d.ticker, []]));
  const indexStates = new Map<string, IndexState>();
  const staleLevels = new Map<string, number>();
  const statuses = new Map<string, Record<VolStatus, number>>();
  const volStates = new Map<string, VolState>();
  const observed: Snapshot[][] = [];
  let missingHours = 0;
  for (let h = 0; h < HOURS; h++) {
    const hour = demo.advance();
    if (h % 24 === 0) observed.push(hour.observed);
    missingHours += hour.latest.length - hour.observed.length;
    for (const def of defs.indices) {
      const r = stepIndex(def, indexStates.get(def.ticker) ?? null, hour.t, hour.latest, hour.universe);
      indexStates.set(def.ticker, r.state);
      if (r.reconstitution) reconstitutions.get(def.ticker)?.push(r.reconstitution);
      if (r.level?.stale) staleLevels.set(def.ticker, (staleLevels.get(def.ticker) ?? 0) + 1);
    }
    for (const def of defs.series) {
      const r = stepVolatility(def, volStates.get(def.ticker) ?? null, hour.t, hour.latest);
      volStates.set(def.ticker, r.state);
      const counts = statuses.get(def.ticker) ?? { ok: 0, flagged: 0, suspended: 0 };
      if (r.tick) counts[r.tick.status]++;
      statuses.set(def.ticker, counts);
    }
  }
  run = {
    demo,
    defs,
    reconstitutions,
    indexStates,
    staleLevels,
    statuses,
    volStates,
    observed,
    missingHours,
    elapsedMs: Date.now() - began,
  };
}, 600_000);

describe("demo market shape over 120 days of hours", () => {
  test("at least four indices on different themes, one of them DATED", () => {
    const themes = new Set(run.defs.indices.map((d) => d.theme));
    expect(run.defs.indices.length).toBeGreaterThanOrEqual(4);
    expect(themes.size).toBeGreaterThanOrEqual(4);
    expect(run.defs.indices.some((d) => d.maturityType === "DATED")).toBe(true);
  });

  test("every index has several reconstitutions", () => {
    for (const [ticker, records] of run.reconstitutions) {
      expect(records.length, ticker).toBeGreaterThanOrEqual(5);
      expect(
        records.some((r) => r.addedMarketCount > 0),
        ticker,
      ).toBe(true);
    }
  });

  test("one index ceases and the DATED one resolves within the 120 days", () => {
    const states = [...run.indexStates.values()];
    expect(states.some((s) => s.ceasedAt !== null)).toBe(true);
    const dated = run.defs.indices.find((d) => d.maturityType === "DATED");
    expect(run.indexStates.get(dated?.ticker ?? "")?.resolvedAt).not.toBeNull();
  });

  test("some index levels rest on stale inputs (markets miss hours)", () => {
    expect(run.missingHours).toBeGreaterThan(0);
    expect([...run.staleLevels.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  test("at least four composite-of-partition series with 3 to 8 legs, one unlisted", () => {
    const series = run.defs.series;
    expect(series.length).toBeGreaterThanOrEqual(4);
    for (const s of series) {
      expect(s.targetType).toBe("composite-of-partition");
      expect(s.legs.length).toBeGreaterThanOrEqual(3);
      expect(s.legs.length).toBeLessThanOrEqual(8);
      expect(s.tenorsDays).toHaveLength(3);
    }
    expect(series.filter((s) => !s.listed)).toHaveLength(1);
  });

  test("some ticks are suspended and some flagged, while most publish ok", () => {
    const all = [...run.statuses.values()];
    const total = (k: VolStatus) => all.reduce((a, c) => a + c[k], 0);
    expect(total("suspended")).toBeGreaterThan(0);
    expect(total("flagged")).toBeGreaterThan(0);
    expect(total("ok")).toBeGreaterThan(total("flagged") + total("suspended"));
    const listed = run.defs.series.filter((s) => s.listed);
    for (const s of listed) expect(run.volStates.get(s.ticker)?.retiredReason ?? null, s.ticker).not.toBe("degraded");
  });

  test("quotes are probabilities with 1-4 cent spreads (narrower near 0 and 1) and realistic depth", () => {
    const live = run.observed.flat().filter((s) => !s.resolved);
    expect(live.length).toBeGreaterThan(1000);
    for (const s of live) {
      expect(s.bestBid.greaterThan(0) && s.bestAsk.lessThan(1) && s.bestBid.lessThan(s.bestAsk)).toBe(true);
      expect(s.mid.equals(s.bestBid.plus(s.bestAsk).div(2))).toBe(true);
    }
    const spreads = live.map((s) => s.bestAsk.minus(s.bestBid).toNumber()).sort((a, b) => a - b);
    const median = spreads[Math.floor(spreads.length / 2)] as number;
    expect(median).toBeGreaterThanOrEqual(0.01);
    expect(median).toBeLessThanOrEqual(0.04);
    const depths = live.map((s) => s.depthUsd.toNumber());
    expect(Math.min(...depths)).toBeLessThan(500);
    expect(Math.max(...depths)).toBeGreaterThan(10_000);
  });

  test("partition legs' mids sum to about 1 with a small overround", () => {
    for (const def of run.defs.series) {
      for (const hour of run.observed.slice(0, 60)) {
        const legs = hour.filter((s) => def.legs.includes(s.conditionId) && !s.resolved);
        if (legs.length !== def.legs.length) continue;
        const sum = legs.reduce((a, s) => a + s.mid.toNumber(), 0);
        expect(sum).toBeGreaterThan(0.94);
        expect(sum).toBeLessThan(1.12);
      }
    }
  });

  test("the whole demo steps through 120 days in memory in reasonable time", () => {
    expect(run.elapsedMs).toBeLessThan(300_000);
  });
});
