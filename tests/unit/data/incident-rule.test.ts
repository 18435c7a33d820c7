import { describe, expect, it } from "vitest";
import { conditionsOf, type Facts, reconcile, venueRunFailed } from "@/lib/data/incident-rule";

const quiet: Facts = { engineBehind: null, venues: [], indices: [], series: [] };

describe("a venue fails for a whole collector run only when it read nothing and something failed", () => {
  it.each([
    [{ snapshots: 0, resolved: 0, problems: ["gamma: 503"] }, true],
    [{ snapshots: 0, resolved: 0, problems: [] }, false], // nothing to read is not a failure
    [{ snapshots: 3, resolved: 0, problems: ["tok-b: 429"] }, false], // a partial read is stale markets, not an incident
    [{ snapshots: 0, resolved: 2, problems: ["tok-b: 429"] }, false],
  ])("%j -> %s", (run, failed) => {
    expect(venueRunFailed(run)).toBe(failed);
  });
});

describe("conditions: a failing venue, the engine behind, a stale active index or series", () => {
  it("names each condition by a stable key", () => {
    const c = conditionsOf({
      engineBehind: { lastComputedHour: "2026-11-24T01:00:00.000000Z", tickMinutes: 60 },
      venues: [
        { venue: "kalshi", failing: true, lastOkAt: null, lastError: "timeout" },
        { venue: "polymarket", failing: false, lastOkAt: "2026-11-24T01:00:00.000000Z", lastError: "tok: 429" },
      ],
      indices: [
        { ticker: "PMX-A", freshness: "stale", lastLevelAt: "2026-11-23T01:00:00.000000Z" },
        { ticker: "PMX-B", freshness: "late", lastLevelAt: "2026-11-24T00:00:00.000000Z" },
      ],
      series: [
        { ticker: "PMV-A", freshness: "stale", lastComputedAt: "2026-11-23T01:00:00.000000Z" },
        { ticker: "PMV-B", freshness: "final", lastComputedAt: "2026-11-01T00:00:00.000000Z" },
      ],
    });
    expect(c.map((x) => x.key)).toEqual(["engine", "venue:kalshi", "index:PMX-A", "series:PMV-A"]);
    expect(c.find((x) => x.key === "venue:kalshi")?.detail).toContain("timeout");
  });
  it("holds none when everything is current", () => {
    expect(conditionsOf(quiet)).toEqual([]);
  });
  it("holds none for what was never computed (a fresh install is not an incident)", () => {
    expect(
      conditionsOf({
        engineBehind: { lastComputedHour: null, tickMinutes: 60 },
        venues: [],
        indices: [{ ticker: "PMX-A", freshness: "stale", lastLevelAt: null }],
        series: [{ ticker: "PMV-A", freshness: "stale", lastComputedAt: null }],
      }),
    ).toEqual([]);
  });
});

describe("a backfill in progress is not an incident", () => {
  const behind: Facts = {
    engineBehind: { lastComputedHour: "2026-08-01T05:00:00.000000Z", tickMinutes: 1 },
    venues: [{ venue: "kalshi", failing: true, lastOkAt: null, lastError: "timeout" }],
    indices: [{ ticker: "PMX-A", freshness: "stale", lastLevelAt: "2026-08-01T05:00:00.000000Z" }],
    series: [{ ticker: "PMV-A", freshness: "stale", lastComputedAt: "2026-08-01T05:00:00.000000Z" }],
  };
  it("holds no engine or staleness condition while the history is being computed; a failing venue still is one", () => {
    expect(conditionsOf({ ...behind, backfilling: true }).map((c) => c.key)).toEqual(["venue:kalshi"]);
  });
  it("holds them all once the backfill is done and the data is still behind", () => {
    expect(conditionsOf({ ...behind, backfilling: false }).map((c) => c.key)).toEqual([
      "engine",
      "venue:kalshi",
      "index:PMX-A",
      "series:PMV-A",
    ]);
  });
});

describe("reconcile: open when a condition starts, close when it ends, once each", () => {
  const stale = conditionsOf({
    ...quiet,
    indices: [{ ticker: "PMX-A", freshness: "stale", lastLevelAt: "2026-11-23T01:00:00.000000Z" }],
  });

  it("opens an incident for a condition with none open", () => {
    expect(reconcile([], stale)).toEqual({ open: stale, close: [] });
  });
  it("does not open a second incident while one is open for the condition", () => {
    expect(reconcile([{ id: "1", key: "index:PMX-A" }], stale)).toEqual({ open: [], close: [] });
  });
  it("closes the automatic incident when the condition has ended", () => {
    expect(reconcile([{ id: "1", key: "index:PMX-A" }], [])).toEqual({ open: [], close: ["1"] });
  });
  it("leaves incidents opened by hand (no key) to the operator", () => {
    expect(reconcile([{ id: "9", key: null }], [])).toEqual({ open: [], close: [] });
  });
  it("opens one incident when a condition is listed twice", () => {
    expect(reconcile([], [...stale, ...stale]).open).toHaveLength(1);
  });
  it("reopens after recovery: a condition that returns gets a new incident", () => {
    const first = reconcile([], stale);
    const closed = reconcile([{ id: "1", key: "index:PMX-A" }], []);
    const again = reconcile([], stale);
    expect([first.open.length, closed.close, again.open.length]).toEqual([1, ["1"], 1]);
  });
});

// Rule (lib/data/incident-rule.ts): each active drift of a venue's API is a condition naming the
// venue, the endpoint and the field, while a backfill runs too (a drift is not data being computed).
describe("conditions: a venue's API drift", () => {
  it("one condition per venue, endpoint and field, with the change in its detail", () => {
    const c = conditionsOf({
      ...quiet,
      backfilling: true,
      drift: [
        {
          venue: "polymarket",
          endpoint: "gamma GET /events/keyset",
          field: "events",
          detail: "unexpected shape: Invalid input",
          since: "2026-11-24T01:00:00.000000Z",
        },
        {
          venue: "polymarket",
          endpoint: "gamma GET /events/keyset",
          field: "headers",
          detail: "sunset: Fri, 01 Jan 2027 00:00:00 GMT",
          since: "2026-11-24T01:00:00.000000Z",
        },
        {
          venue: "kalshi",
          endpoint: "kalshi GET /historical/cutoff",
          field: "status",
          detail: "HTTP 410 Gone: the endpoint no longer answers",
          since: "2026-11-24T02:00:00.000000Z",
        },
      ],
    });
    expect(c.map((x) => [x.key, x.subject, x.title])).toEqual([
      ["drift:polymarket|gamma GET /events/keyset|events", "polymarket", "Venue API changed: gamma GET /events/keyset"],
      [
        "drift:polymarket|gamma GET /events/keyset|headers",
        "polymarket",
        "Venue API changed: gamma GET /events/keyset",
      ],
      [
        "drift:kalshi|kalshi GET /historical/cutoff|status",
        "kalshi",
        "Venue API changed: kalshi GET /historical/cutoff",
      ],
    ]);
    expect(c[0]!.detail).toContain("field events: unexpected shape");
    expect(c[1]!.detail).toContain("its headers: sunset: Fri, 01 Jan 2027");
    expect(c[2]!.detail).toContain("its status: HTTP 410 Gone");
  });
});
