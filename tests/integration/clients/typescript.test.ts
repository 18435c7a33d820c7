import http from "node:http";
import type { AddressInfo } from "node:net";
import { Decimal } from "decimal.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  InternalError,
  InvalidApiKeyError,
  InvalidIntervalError,
  InvalidParameterError,
  InvalidWindowError,
  NotFoundError,
  PmbClient,
  PmbError,
  RateLimitedError,
  UnavailableError,
} from "@/clients/typescript/src/index";
import { baseUrl, newKey } from "../support/api";

// The TypeScript client (clients/typescript) against the running server, and against a scripted
// local HTTP server for the failures a healthy server does not produce on demand.

const DAY = 86_400_000;
let client: PmbClient;
let index = "";
let series = "";

beforeAll(async () => {
  client = new PmbClient({ apiKey: (await newKey()).key, baseUrl: baseUrl() });
  index = (await client.indices()).data.indices[0]!.ticker;
  series = (await client.volatility()).data.series[0]!.ticker;
});

describe("TypeScript client against the server", () => {
  it("takes the key and base address from PMB_API_KEY and PMB_BASE_URL", async () => {
    const { key } = await newKey();
    const saved = { ...process.env };
    Object.assign(process.env, { PMB_API_KEY: key, PMB_BASE_URL: baseUrl(1) });
    try {
      const fromEnv = new PmbClient();
      expect((await fromEnv.service()).data.key.prefix).toBe(key.slice(0, 13));
    } finally {
      process.env.PMB_API_KEY = saved.PMB_API_KEY;
      process.env.PMB_BASE_URL = saved.PMB_BASE_URL;
      if (saved.PMB_API_KEY === undefined) delete process.env.PMB_API_KEY;
      if (saved.PMB_BASE_URL === undefined) delete process.env.PMB_BASE_URL;
    }
    expect(() => new PmbClient({ baseUrl: baseUrl() })).toThrow(/PMB_API_KEY/);
  });

  it("GET /v1: the quota from the rate-limit headers equals the key block", async () => {
    const result = await client.service();
    expect(result.data.version).toBe("v1");
    expect(result.quota).toMatchObject({
      limitMinute: result.data.key.limitMinute,
      remainingMinute: result.data.key.remainingMinute,
      remainingDay: result.data.key.remainingDay,
    });
    expect(client.quota).toEqual(result.quota);
    expect(result.quota!.resetMinute.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(result.requestId).toMatch(/\S/);
    expect(result.meta.generatedAt).toBeInstanceOf(Date);
  });

  it("levels are Decimal and timestamps Date (tickers case-insensitive)", async () => {
    const { data } = await client.indexLatest(index.toLowerCase());
    expect(data.indexLevel).toBeInstanceOf(Decimal);
    expect(data.baseIndexLevel.equals(100)).toBe(true);
    expect(data.computedAt).toBeInstanceOf(Date);
    expect(data.inceptionAt.getTime()).toBeLessThan(data.computedAt.getTime());
  });

  it("the fields without Z (tick.computedAt, prevComputedAt, observed_at) are read as UTC", async () => {
    const { data } = await client.volatilityLatest(series);
    const catalog = (await client.volatility()).data.series.find((s) => s.ticker === series)!;
    // the catalog's lastComputedAt carries the Z: the same instant, whatever the local zone
    expect((data.published ?? data.tick).computedAt.getTime()).toBe(catalog.lastComputedAt.getTime());
    const prev = data.tick.attribution.prevComputedAt;
    if (prev) expect(prev.getTime()).toBeLessThan(data.tick.computedAt.getTime());
    const observed = data.tick.components.flatMap((c) => (c.observed_at ? [c.observed_at] : []));
    expect(observed.length).toBeGreaterThan(0);
    for (const t of observed) expect(t.getTime()).toBeLessThanOrEqual(data.tick.computedAt.getTime());
  });

  it("walks a long index range window by window, equal to one request over the same range", async () => {
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const start = new Date(end.getTime() - 40 * DAY);
    const walked = await client.indexHistoryRange(index, { start, end, interval: "1h", windowDays: 7 });
    const single = await client.indexHistory(index, { start, end, interval: "1h" });
    expect(walked.requests).toBe(6);
    expect(walked.clamped).toBe(false);
    expect(walked.points.map((p) => p.t.getTime())).toEqual(single.data.points.map((p) => p.t.getTime()));
    expect(walked.points.map((p) => p.indexLevel.toFixed(8))).toEqual(
      single.data.points.map((p) => p.indexLevel.toFixed(8)),
    );
  });

  it("a range older than the 90-day window is clamped and walked from the window served", async () => {
    const walked = await client.indexHistoryRange(index, { start: "2020-01-01", interval: "1d" });
    expect(walked.clamped).toBe(true);
    expect(Math.abs(walked.effectiveStart!.getTime() - (Date.now() - 90 * DAY))).toBeLessThan(120_000);
    expect(walked.requests).toBeLessThanOrEqual(5);
    const trailing = await client.indexHistory(index, { interval: "1d" });
    expect(walked.points.length).toBeGreaterThanOrEqual(trailing.data.count - 1);
    expect(walked.points.length).toBeGreaterThan(0);
  });

  it("volatility history over a range comes oldest first and complete", async () => {
    const start = new Date(Date.now() - 10 * DAY);
    const range = await client.volatilityHistoryRange(series, { start, includeGated: true });
    const times = range.points.map((p) => p.t.getTime());
    expect(range.complete).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.length).toBeGreaterThan(200);
    expect(times[0]).toBeGreaterThanOrEqual(start.getTime());
  });

  it("reconstitutions, volatility history and downloads", async () => {
    const events = await client.reconstitutions(index, { limit: 3 });
    expect(events.data.count).toBeLessThanOrEqual(3);
    for (const e of events.data.events) expect(e.completedAt).toBeInstanceOf(Date);
    const history = await client.volatilityHistory(series, { limit: 2 });
    expect(history.data.points[0]!.t.getTime()).toBeGreaterThan(history.data.points[1]!.t.getTime());
    expect(history.meta.historyMaxDays).toBe(90);
    expect((await client.downloads()).data.latestManifestUrl).toMatch(/^https?:\/\//);
  });

  it("errors are typed by error.code and carry the request id", async () => {
    const notFound = await client.indexLatest("NOPE-NOT-A-TICKER").catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect((notFound as NotFoundError).requestId).toMatch(/\S/);
    expect((notFound as NotFoundError).docsUrl).toMatch(/\/docs\/errors#not_found$/);
    await expect(client.indexHistory(index, { interval: "5m" as "1h" })).rejects.toBeInstanceOf(InvalidIntervalError);
    await expect(client.indexHistory(index, { start: "2026-01-02", end: "2026-01-01" })).rejects.toBeInstanceOf(
      InvalidWindowError,
    );
    await expect(client.reconstitutions(index, { limit: 51 })).rejects.toBeInstanceOf(InvalidParameterError);
    const badKey = await new PmbClient({ apiKey: "svc_live_thisisnotakey", baseUrl: baseUrl() })
      .service()
      .catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(InvalidApiKeyError);
    expect((badKey as PmbError).requestId).toMatch(/\S/);
  });

  it("a 429 is retried after exactly Retry-After seconds, and thrown at once when that exceeds the cap", async () => {
    const { key } = await newKey({ limitMinute: 1 });
    const waits: number[] = [];
    const capped = new PmbClient({
      apiKey: key,
      baseUrl: baseUrl(),
      maxRetryWaitSeconds: 0,
      onRetry: ({ waitSeconds }) => waits.push(waitSeconds),
    });
    await capped.service();
    expect(capped.quota!.remainingMinute).toBe(0);
    const error = (await capped.service().catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.retryAfter).toBeLessThanOrEqual(61);
    expect(error.requestId).toMatch(/\S/);
    expect(waits).toEqual([]);
    expect(Math.abs((capped.quota!.resetMinute.getTime() - Date.now()) / 1000 - error.retryAfter!)).toBeLessThanOrEqual(
      2,
    );
  });
});

describe("TypeScript client retries (scripted local server)", () => {
  let server: http.Server | undefined;
  afterEach(() => server?.close());

  /** Serves the scripted responses in order; returns the client and the request log. */
  async function scripted(script: Array<[number, Record<string, string>, unknown]>) {
    const seen: string[] = [];
    server = http.createServer((req, res) => {
      seen.push(req.headers.authorization ?? "");
      const [status, headers, body] = script.shift()!;
      res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": `req-${seen.length}`, ...headers });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const waits: number[] = [];
    const c = new PmbClient({
      apiKey: "svc_live_test",
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      maxRetryWaitSeconds: 1,
      onRetry: ({ waitSeconds }) => waits.push(waitSeconds),
    });
    return { c, seen, waits };
  }
  const err = (code: string) => ({
    error: { code, message: "m", docsUrl: `http://x/docs/errors#${code}`, requestId: `rid-${code}` },
  });
  const ok = { data: { indexLevel: "101.00000001", computedAt: "2026-11-21T13:00:00.000000" }, meta: {} };

  it("a 503 with Retry-After is retried after that many seconds", async () => {
    const { c, seen, waits } = await scripted([
      [503, { "Retry-After": "1" }, err("unavailable")],
      [200, {}, ok],
    ]);
    const started = Date.now();
    const result = await c.get<{ indexLevel: Decimal; computedAt: Date }>("/v1/x");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(waits).toEqual([1]);
    expect(seen).toEqual(["Bearer svc_live_test", "Bearer svc_live_test"]);
    expect(result.data.indexLevel.toFixed(8)).toBe("101.00000001");
    expect(result.data.computedAt.toISOString()).toBe("2026-11-21T13:00:00.000Z");
  });

  it("500s back off, then the typed error carries the request id", async () => {
    const { c, waits } = await scripted([
      [500, {}, err("internal_error")],
      [500, {}, err("internal_error")],
      [500, {}, err("internal_error")],
      [500, {}, err("internal_error")],
    ]);
    const error = (await c.get("/v1/x").catch((e: unknown) => e)) as InternalError;
    expect(error).toBeInstanceOf(InternalError);
    expect(error.requestId).toBe("rid-internal_error");
    expect(waits).toEqual([1, 1, 1]); // 1, 2, 4 s capped at maxRetryWaitSeconds
  }, 10_000);

  it("a Retry-After over the cap is thrown at once; a 404 is never retried", async () => {
    const { c, seen, waits } = await scripted([
      [503, { "Retry-After": "30" }, err("unavailable")],
      [404, {}, err("not_found")],
    ]);
    await expect(c.get("/v1/x")).rejects.toBeInstanceOf(UnavailableError);
    await expect(c.get("/v1/x")).rejects.toBeInstanceOf(NotFoundError);
    expect(seen.length).toBe(2);
    expect(waits).toEqual([]);
  });
});
