import { describe, expect, it } from "vitest";
import { call, newKey } from "../support/api";

// Rule: history windows are half-open, [start, end): back-to-back windows return every point once,
// the boundary point in the later window only.

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The index computed most recently (a ceased or resolved index stops early) and its last hour. */
async function liveIndex(key: string): Promise<{ ticker: string; lastMs: number }> {
  const catalog = await call("/v1/indices", { key });
  const entries = catalog.body.data.indices as Array<{ ticker: string; lastComputedAt: string }>;
  const best = entries.reduce((a, b) => (Date.parse(b.lastComputedAt) > Date.parse(a.lastComputedAt) ? b : a));
  return { ticker: best.ticker, lastMs: Date.parse(best.lastComputedAt) };
}

describe("history windows are half-open [start, end)", () => {
  it("index history: back-to-back windows do not count the boundary hour twice", async () => {
    const { key } = await newKey({ limitMinute: 1000 });
    const { ticker, lastMs } = await liveIndex(key);
    const c = lastMs + HOUR;
    const a = c - 48 * HOUR;
    const b = c - 24 * HOUR;
    const iso = (ms: number) => new Date(ms).toISOString();
    const get = async (from: number, to: number) => {
      const res = await call(`/v1/indices/${ticker}/history?interval=1h&start=${iso(from)}&end=${iso(to)}`, { key });
      expect(res.status).toBe(200);
      return res.body.data.points as Array<{ t: string }>;
    };
    const first = await get(a, b);
    const second = await get(b, c);
    const whole = await get(a, c);
    expect(first).toHaveLength(24);
    expect(second).toHaveLength(24);
    expect(first[0]!.t).toBe(new Date(a).toISOString().replace(/\.\d{3}Z$/, ".000000Z"));
    expect(first.some((p) => Date.parse(p.t) === b)).toBe(false);
    expect(Date.parse(second[0]!.t)).toBe(b);
    expect([...first, ...second].map((p) => p.t)).toEqual(whole.map((p) => p.t));
    expect(new Set(whole.map((p) => p.t)).size).toBe(whole.length);
  });

  it("index history at 1d: a window ending at a midnight leaves that day's fixing to the next window", async () => {
    const { key } = await newKey();
    const { ticker, lastMs } = await liveIndex(key);
    const midnight = Math.floor(lastMs / DAY) * DAY;
    const iso = (ms: number) => new Date(ms).toISOString();
    const before = await call(
      `/v1/indices/${ticker}/history?interval=1d&start=${iso(midnight - 3 * DAY)}&end=${iso(midnight)}`,
      { key },
    );
    const after = await call(
      `/v1/indices/${ticker}/history?interval=1d&start=${iso(midnight)}&end=${iso(midnight + DAY)}`,
      { key },
    );
    const ts = (r: typeof before) => (r.body.data.points as Array<{ t: string }>).map((p) => Date.parse(p.t));
    expect(ts(before)).toEqual([midnight - 3 * DAY, midnight - 2 * DAY, midnight - DAY]);
    expect(ts(after)).toEqual([midnight]);
  });

  it("volatility history: a value computed at exactly start is included (newest first, ending before now)", async () => {
    const { key } = await newKey();
    const catalog = await call("/v1/volatility", { key });
    const ticker = catalog.body.data.series[0].ticker as string;
    const all = await call(`/v1/volatility/${ticker}/history?limit=5`, { key });
    const points = all.body.data.points as Array<{ t: string }>;
    const oldest = points.at(-1)!.t;
    const from = await call(`/v1/volatility/${ticker}/history?start=${oldest}&limit=5000`, { key });
    const ts = (from.body.data.points as Array<{ t: string }>).map((p) => p.t);
    expect(ts.at(-1)).toBe(oldest);
    expect(ts.slice(0, points.length)).toEqual(points.map((p) => p.t));
  });
});
