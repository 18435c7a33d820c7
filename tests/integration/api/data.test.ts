import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, call, expectError, newKey, startupSettled, testDb } from "../support/api";

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const TS_NO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const LEVEL = /^\d+\.\d{8}$/;
const DAY = 86_400_000;

let key = "";
let tickers: string[] = [];
let active = "";
let seriesTickers: string[] = [];

beforeAll(async () => {
  // The instances' start-up work (backfill, bundle builds) ends first: queries made while it runs may answer 503 on a busy machine.
  await startupSettled();
  key = (await newKey({ limitMinute: 100_000, limitDay: 1_000_000 })).key;
  const indices = await call("/v1/indices", { key });
  tickers = indices.body.data.indices.map((i: { ticker: string }) => i.ticker);
  active = indices.body.data.indices.find((i: { publicStatus: string }) => i.publicStatus === "active").ticker;
  const vol = await call("/v1/volatility", { key });
  seriesTickers = vol.body.data.series.map((s: { ticker: string }) => s.ticker);
}, 660_000);

async function db() {
  return testDb();
}

describe("GET /v1", () => {
  it("key.prefix identifies the calling key: its display prefix, never the secret", async () => {
    const own = await newKey();
    const res = await call("/v1", { key: own.key });
    expect(res.body.data.key.prefix).toBe(own.key.slice(0, "svc_live_".length + 4));
    expect(JSON.stringify(res.body)).not.toContain(own.key);
  });
});

describe("GET /v1/indices", () => {
  it("lists at least four indices with the catalog fields, one of them ceased or resolved", async () => {
    const res = await call("/v1/indices", { key });
    expect(res.status).toBe(200);
    const { count, indices } = res.body.data;
    expect(count).toBe(indices.length);
    expect(count).toBeGreaterThanOrEqual(4);
    for (const i of indices) {
      expect(Object.keys(i).sort()).toEqual([
        "ceasedAt",
        "lastComputedAt",
        "name",
        "publicStatus",
        "resolvedAt",
        "stale",
        "ticker",
      ]);
      expect(i.lastComputedAt).toMatch(TS);
      expect(["active", "ceased", "resolved"]).toContain(i.publicStatus);
    }
    expect(indices.some((i: { publicStatus: string }) => i.publicStatus !== "active")).toBe(true);
  });
});

describe("GET /v1/indices/{ticker}/latest", () => {
  it("returns the latest level as a decimal string with 8 places, case-insensitively", async () => {
    const t = active;
    const upper = await call(`/v1/indices/${t}/latest`, { key });
    const lower = await call(`/v1/indices/${t.toLowerCase()}/latest`, { key });
    expect(upper.status).toBe(200);
    expect(lower.body.data).toEqual(upper.body.data);
    const d = upper.body.data;
    expect(d.indexLevel).toMatch(LEVEL);
    expect(d.baseIndexLevel).toBe("100.00000000");
    expect(d.computedAt).toMatch(TS);
    expect(d.inceptionAt).toMatch(TS);
    expect(typeof d.revision).toBe("number");
    expect(d.dataQuality).toEqual({
      freshDataPct: expect.any(Number),
      freshMarketsCount: expect.any(Number),
      staleMarketsCount: expect.any(Number),
      totalMarketsCount: expect.any(Number),
    });
    expect(d.dataQuality.freshMarketsCount + d.dataQuality.staleMarketsCount).toBe(d.dataQuality.totalMarketsCount);
  });

  it("equals the newest point of the hourly history", async () => {
    for (const t of tickers) {
      const latest = await call(`/v1/indices/${t}/latest`, { key });
      if (latest.body.data.publicStatus !== "active") continue;
      const history = await call(`/v1/indices/${t}/history?interval=1h`, { key });
      const last = history.body.data.points.at(-1);
      expect(last.indexLevel).toBe(latest.body.data.indexLevel);
      expect(last.t).toBe(latest.body.data.computedAt);
    }
  });
});

describe("GET /v1/indices/{ticker}/history", () => {
  it("with no parameters: the full trailing 90-day window at 1d, oldest first", async () => {
    const res = await call(`/v1/indices/${active}/history`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.interval).toBe("1d");
    expect(res.body.data.ticker).toBe(active);
    const points = res.body.data.points as Array<{ t: string; indexLevel: string; revision: number; stale: boolean }>;
    expect(res.body.data.count).toBe(points.length);
    expect(points.length).toBeGreaterThanOrEqual(89);
    expect(points.length).toBeLessThanOrEqual(91);
    for (let i = 1; i < points.length; i++)
      expect(Date.parse(points[i]!.t)).toBeGreaterThan(Date.parse(points[i - 1]!.t));
    for (const p of points) {
      expect(Object.keys(p).sort()).toEqual(["indexLevel", "revision", "stale", "t"]);
      expect(p.indexLevel).toMatch(LEVEL);
    }
    const meta = res.body.meta;
    expect(meta.clamped).toBe(false);
    expect(meta.historyMaxDays).toBe(90);
    expect(meta.effectiveStart).toMatch(TS);
    expect(meta.effectiveEnd).toMatch(TS);
    expect(Math.abs(Date.parse(meta.effectiveEnd) - Date.parse(meta.effectiveStart) - 90 * DAY)).toBeLessThan(60_000);
  });

  it("1h gives hourly points over the window", async () => {
    const res = await call(`/v1/indices/${active}/history?interval=1h`, { key });
    expect(res.body.data.interval).toBe("1h");
    expect(res.body.data.count).toBeGreaterThan(24 * 89);
  });

  it("an older start is clamped, never rejected", async () => {
    const start = new Date(Date.now() - 200 * DAY).toISOString();
    const res = await call(`/v1/indices/${active}/history?start=${start}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta.clamped).toBe(true);
    expect(Date.parse(res.body.meta.effectiveStart)).toBeGreaterThan(Date.now() - 90 * DAY - 60_000);
  });

  it("a window entirely before the floor returns no points with clamped true", async () => {
    const start = new Date(Date.now() - 200 * DAY).toISOString();
    const end = new Date(Date.now() - 150 * DAY).toISOString();
    const res = await call(`/v1/indices/${active}/history?start=${start}&end=${end}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.points).toEqual([]);
    expect(res.body.data.count).toBe(0);
    expect(res.body.meta.clamped).toBe(true);
  });

  it("a future end is clamped to now", async () => {
    const end = new Date(Date.now() + 10 * DAY).toISOString();
    const res = await call(`/v1/indices/${active}/history?end=${end}`, { key });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.meta.effectiveEnd)).toBeLessThanOrEqual(Date.now());
  });

  it("start not before end gives invalid_window quoting both values to the second", async () => {
    const res = await call(`/v1/indices/${active}/history?start=2026-10-02T10:00:00Z&end=2026-10-01T08:30:00Z`, {
      key,
    });
    expectError(res, 422, "invalid_window");
    expect(res.body.error.message).toContain("2026-10-02T10:00:00Z");
    expect(res.body.error.message).toContain("2026-10-01T08:30:00Z");
  });

  it("a start after a future end is reported against the current time", async () => {
    const start = new Date(Date.now() + 5 * DAY);
    const res = await call(
      `/v1/indices/${active}/history?start=${start.toISOString()}&end=${new Date(Date.now() + 9 * DAY).toISOString()}`,
      { key },
    );
    expectError(res, 422, "invalid_window");
    const quoted = res.body.error.message.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g) as string[];
    expect(Math.abs(Date.parse(quoted[1]!) - Date.now())).toBeLessThan(120_000);
  });

  it.each([
    ["start=yesterday", "start"],
    ["end=2026-13-01", "end"],
    ["start=2026-02-30", "start"],
  ])("an unparseable date (%s) gives invalid_parameter naming it", async (qs, name) => {
    const res = await call(`/v1/indices/${active}/history?${qs}`, { key });
    expectError(res, 422, "invalid_parameter");
    expect(res.body.error.message).toContain(`'${name}'`);
  });

  it.each(["2h", "1H", "", "1m"].filter(Boolean))("interval=%s gives invalid_interval", async (interval) => {
    const res = await call(`/v1/indices/${active}/history?interval=${interval}`, { key });
    expectError(res, 422, "invalid_interval");
  });
});

describe("GET /v1/indices/{ticker}/reconstitutions", () => {
  it("returns events newest first with uuid ids, default limit 20", async () => {
    for (const t of tickers) {
      const res = await call(`/v1/indices/${t}/reconstitutions`, { key });
      expect(res.status).toBe(200);
      const events = res.body.data.events as Array<{ eventId: string; completedAt: string; addedMarketCount: number }>;
      expect(res.body.data.count).toBe(events.length);
      expect(events.length).toBeLessThanOrEqual(20);
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const e of events) {
        expect(e.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(e.completedAt).toMatch(TS);
        expect(Number.isInteger(e.addedMarketCount)).toBe(true);
      }
      for (let i = 1; i < events.length; i++)
        expect(Date.parse(events[i]!.completedAt)).toBeLessThan(Date.parse(events[i - 1]!.completedAt));
      expect(Object.keys(res.body.meta).sort()).toEqual(["attribution", "generatedAt", "license", "termsUrl"]);
    }
  });

  it("limit bounds the count; outside 1..50 is invalid_parameter naming limit", async () => {
    const one = await call(`/v1/indices/${active}/reconstitutions?limit=1`, { key });
    expect(one.body.data.count).toBe(1);
    expect((await call(`/v1/indices/${active}/reconstitutions?limit=50`, { key })).status).toBe(200);
    for (const bad of ["0", "51", "abc", "-1", "2.5"]) {
      const res = await call(`/v1/indices/${active}/reconstitutions?limit=${bad}`, { key });
      expectError(res, 422, "invalid_parameter");
      expect(res.body.error.message).toContain("'limit'");
    }
  });
});

describe("GET /v1/volatility", () => {
  it("lists published, listed series with their latest published headline and tenor", async () => {
    const res = await call("/v1/volatility", { key });
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBe(res.body.data.series.length);
    expect(res.body.data.count).toBeGreaterThanOrEqual(3);
    for (const s of res.body.data.series) {
      expect(s.listed).toBe(true);
      expect(s.publicationState).toBe("published");
      expect(typeof s.headlinePts).toBe("number");
      expect(Number.isInteger(s.headlineTenorDays)).toBe(true);
      expect(s.units).toBe("probability points");
      expect(s.targetType).toBe("composite-of-partition");
    }
  });

  it("the methodology link is on the answering instance's public base URL, whichever instance seeded the catalog", async () => {
    for (const instance of [0, 1]) {
      const res = await call("/v1/volatility", { key, instance });
      for (const s of res.body.data.series)
        expect(s.methodologyUrl).toBe(`${baseUrl(instance)}/docs/methodology#volatility`);
      const latest = await call(`/v1/volatility/${res.body.data.series[0].ticker}/latest`, { key, instance });
      expect(latest.body.data.series.methodologyUrl).toBe(`${baseUrl(instance)}/docs/methodology#volatility`);
    }
  });

  it("an unlisted series is absent and answers not_found", async () => {
    const prisma = await db();
    const unlisted = await prisma.volatilitySeries.findMany({ where: { listed: false }, select: { ticker: true } });
    expect(unlisted.length).toBeGreaterThanOrEqual(1);
    for (const { ticker } of unlisted) {
      expect(seriesTickers).not.toContain(ticker);
      expectError(await call(`/v1/volatility/${ticker}/latest`, { key }), 404, "not_found");
      expectError(await call(`/v1/volatility/${ticker}/history`, { key }), 404, "not_found");
    }
  });
});

describe("GET /v1/volatility/{ticker}/latest", () => {
  it("returns series, tick, publicationState and published with the spec's formats", async () => {
    for (const t of seriesTickers) {
      const res = await call(`/v1/volatility/${t.toLowerCase()}/latest`, { key });
      expect(res.status).toBe(200);
      const { series, tick, publicationState, published } = res.body.data;
      expect(Object.keys(res.body.data).sort()).toEqual(["publicationState", "published", "series", "tick"]);
      expect(series.ticker).toBe(t);
      expect(tick.computedAt).toMatch(TS_NO_Z);
      expect(["ok", "flagged", "suspended"]).toContain(tick.status);
      expect(publicationState).toBe(tick.publicationState);
      if (tick.publicationState === "published") expect(published).toBeNull();
      else expect(published.publicationState).toBe("published");
      expect(Object.keys(tick.tenors).sort()).toEqual(series.tenorsDays.map(String).sort());
      for (const c of tick.components) if (c.observed_at) expect(c.observed_at).toMatch(TS_NO_Z);
      if (tick.attribution.prevComputedAt) expect(tick.attribution.prevComputedAt).toMatch(TS_NO_Z);
      expect(tick.headlinePts).toBe(tick.tenors[String(tick.headlineTenorDays)].pts);
      for (const g of Object.keys(series.gates)) expect(typeof series.gates[g]).toBe("number");
    }
  });
});

describe("GET /v1/volatility/{ticker}/history", () => {
  it("newest first, default limit 500, windowStart and the window meta", async () => {
    const t = seriesTickers[0]!;
    const res = await call(`/v1/volatility/${t}/history`, { key });
    expect(res.status).toBe(200);
    const points = res.body.data.points as Array<{ t: string; publicationState: string }>;
    expect(res.body.data.count).toBe(points.length);
    expect(points.length).toBeLessThanOrEqual(500);
    expect(points.length).toBeGreaterThan(0);
    for (let i = 1; i < points.length; i++) expect(Date.parse(points[i]!.t)).toBeLessThan(Date.parse(points[i - 1]!.t));
    expect(points[0]!.t).toMatch(TS);
    expect(res.body.data.windowStart).toMatch(TS);
    expect(res.body.data.series.ticker).toBe(t);
    expect(res.body.meta.historyMaxDays).toBe(90);
    expect(res.body.meta.clamped).toBe(false);
    expect(res.body.meta.effectiveStart).toBe(res.body.data.windowStart);
    expect(points.every((p) => p.publicationState === "published")).toBe(true);
  });

  it("limit=5000 returns the 90-day window; outside 1..5000 is invalid_parameter", async () => {
    const res = await call(`/v1/volatility/${seriesTickers[0]}/history?limit=5000`, { key });
    expect(res.body.data.count).toBeGreaterThan(500);
    for (const bad of ["0", "5001", "x"])
      expectError(
        await call(`/v1/volatility/${seriesTickers[0]}/history?limit=${bad}`, { key }),
        422,
        "invalid_parameter",
      );
  });

  it("withheld computations appear only with includeGated=true", async () => {
    const prisma = await db();
    const rows = await prisma.volatilityTick.groupBy({
      by: ["seriesId"],
      where: { publicationState: "withheld", series: { listed: true } },
      _count: true,
    });
    expect(rows.length).toBeGreaterThanOrEqual(1);
    const series = await prisma.volatilitySeries.findUniqueOrThrow({
      where: { id: rows[0]!.seriesId },
      select: { ticker: true },
    });
    const without = await call(`/v1/volatility/${series.ticker}/history?limit=5000`, { key });
    const withGated = await call(`/v1/volatility/${series.ticker}/history?limit=5000&includeGated=true`, { key });
    const withheld = (withGated.body.data.points as Array<{ publicationState: string; status: string }>).filter(
      (p) => p.publicationState === "withheld",
    );
    expect(withheld.length).toBeGreaterThan(0);
    for (const p of withheld) expect(p.status).toBe("suspended");
    expect(withGated.body.data.count).toBe(without.body.data.count + withheld.length);
    expectError(
      await call(`/v1/volatility/${series.ticker}/history?includeGated=yes`, { key }),
      422,
      "invalid_parameter",
    );
  });

  it("an older start is clamped", async () => {
    const res = await call(`/v1/volatility/${seriesTickers[0]}/history?start=2020-01-01`, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta.clamped).toBe(true);
  });
});
