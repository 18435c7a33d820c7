import { describe, expect, test } from "vitest";
import { demoCatalogDefinitions } from "@/lib/ingest/catalog-apply";
import { createDemoMarket, resumeDemoMarket, type DemoHour, type DemoState } from "@/lib/ingest/demo-market";
import { Rng, hashSeed } from "@/lib/ingest/demo-prng";

const start = new Date("2025-03-01T00:00:00.000Z");

/** Snapshots as plain JSON so Decimal instances compare by value. */
function plain(hour: DemoHour) {
  return JSON.parse(
    JSON.stringify({ t: hour.t, observed: hour.observed, latest: hour.latest, universe: hour.universe }),
  ) as unknown;
}

function hoursOf(seed: number, count: number) {
  const demo = createDemoMarket({ seed, start });
  return Array.from({ length: count }, () => plain(demo.advance()));
}

describe("demo market determinism", () => {
  test("mulberry32 streams are reproducible from their state", () => {
    const a = new Rng(hashSeed(1, "x"));
    const draws = [a.next(), a.next()];
    const b = new Rng(hashSeed(1, "x"));
    expect([b.next(), b.next()]).toEqual(draws);
    const resumed = new Rng(a.state);
    const again = new Rng(a.state);
    expect(resumed.normal()).toBe(again.normal());
  });

  test("the same seed and start give identical snapshots", () => {
    expect(hoursOf(7, 200)).toEqual(hoursOf(7, 200));
  });

  test("a different seed gives a different feed", () => {
    expect(hoursOf(8, 5)).not.toEqual(hoursOf(7, 5));
  });

  test("resuming from a persisted state (JSON) continues exactly as an uninterrupted run", () => {
    const straight = createDemoMarket({ seed: 7, start });
    const first = createDemoMarket({ seed: 7, start });
    for (let h = 0; h < 150; h++) {
      straight.advance();
      first.advance();
    }
    const saved = JSON.parse(JSON.stringify(first.state())) as DemoState;
    const resumed = resumeDemoMarket(saved);
    expect(resumed.cursor()?.toISOString()).toBe(straight.cursor()?.toISOString());
    for (let h = 0; h < 100; h++) expect(plain(resumed.advance())).toEqual(plain(straight.advance()));
  });

  test("hourAt gives the same hour sequentially, by jumping ahead, by rewinding and right after a resume", () => {
    const a = createDemoMarket({ seed: 3, start });
    const t = new Date(start.getTime() + 90 * 3_600_000);
    const jumped = plain(a.hourAt(t));
    const b = createDemoMarket({ seed: 3, start });
    let last: DemoHour | null = null;
    for (let h = 0; h <= 90; h++) last = b.advance();
    expect(plain(last as DemoHour)).toEqual(jumped);
    a.hourAt(new Date(t.getTime() + 10 * 3_600_000));
    expect(plain(a.hourAt(t))).toEqual(jumped);
    expect(plain(resumeDemoMarket(b.state()).hourAt(t))).toEqual(jumped);
    expect(a.snapshotsAt(t)).toEqual(a.hourAt(t).observed);
  });

  test("the catalog's definitions on the demo depend only on seed and start", () => {
    const a = demoCatalogDefinitions(5, start);
    expect(demoCatalogDefinitions(5, start)).toEqual(a);
    expect(demoCatalogDefinitions(6, start).series[0]?.legs).not.toEqual(a.series[0]?.legs);
  });
});
