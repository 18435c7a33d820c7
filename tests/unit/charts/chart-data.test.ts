import { describe, expect, it } from "vitest";
import { logAxis } from "@/components/charts/axis-format";
import { toCsv } from "@/components/charts/chart-downloads";
import { groupEvents } from "@/components/charts/event-groups";
import { iso6, packTimes, unpackTimes } from "@/lib/site/packed-times";
import { packVolatility, unpackVolatility } from "@/lib/site/volatility-series";

const HOUR = 3_600_000;

describe("packed times", () => {
  it("round-trip API timestamps exactly, including irregular gaps and milliseconds", () => {
    const ts = [
      "2026-08-01T00:00:00.000000Z",
      "2026-08-01T01:00:00.000000Z",
      "2026-08-01T04:00:00.123000Z",
      "2026-08-03T00:00:00.000000Z",
    ];
    const ms = ts.map((t) => Date.parse(t));
    const packed = packTimes(ms);
    expect(packed.d[0]).toBe(0);
    expect(packed.d[1]).toBe(HOUR);
    expect(unpackTimes(packed).map((m) => iso6(m))).toEqual(ts);
    expect(iso6(ms[0]!, false)).toBe("2026-08-01T00:00:00.000000");
  });

  it("a volatility history survives packing: values, nulls, statuses and gate names", () => {
    const points = [
      {
        t: "2026-08-01T00:00:00.000000Z",
        headlinePts: 12.345678,
        bandLoPts: 11.1,
        bandHiPts: 13.2,
        cfHeadlinePts: null,
        status: "ok",
        gateNames: [],
      },
      {
        t: "2026-08-01T01:00:00.000000Z",
        headlinePts: 0.1 + 0.2,
        bandLoPts: 0,
        bandHiPts: 1e-7,
        cfHeadlinePts: 5,
        status: "flagged",
        gateNames: ["depth", "spread"],
      },
      {
        t: "2026-08-01T02:00:00.000000Z",
        headlinePts: 7,
        bandLoPts: 6,
        bandHiPts: 8,
        cfHeadlinePts: 7.25,
        status: "ok",
        gateNames: [],
      },
    ];
    const packed = JSON.parse(JSON.stringify(packVolatility(points, Date.parse))) as ReturnType<typeof packVolatility>;
    expect(packed.statuses).toEqual(["ok", "flagged"]);
    const back = unpackVolatility(packed);
    expect(back.map((p) => [p.t, p.headlinePts, p.bandLoPts, p.bandHiPts, p.cfHeadlinePts, p.status, p.gates])).toEqual(
      points.map((p) => [
        p.t,
        p.headlinePts,
        p.bandLoPts,
        p.bandHiPts,
        p.cfHeadlinePts,
        p.status,
        p.gateNames.join(", "),
      ]),
    );
    // String() of the unpacked number is the API's JSON number text.
    expect(String(back[1]!.headlinePts)).toBe(JSON.stringify(0.1 + 0.2));
  });
});

describe("reconstitution marker groups", () => {
  const event = (h: number) => ({ t: `h${h}`, x: h * HOUR, label: `e${h}` });

  it("merges events closer than the gap on screen and keeps every event in exactly one group", () => {
    const events = [0, 1, 2, 30, 31, 100, 2159].map(event);
    // 2,160 hours on a 390 px phone plot: 28 px is about 155 hours.
    const groups = groupEvents(events, 0, 2159 * HOUR, 390);
    expect(groups.flatMap((g) => g.events.map((e) => e.t))).toEqual(events.map((e) => e.t));
    const gapMs = (2159 * HOUR * 28) / 390;
    for (let i = 1; i < groups.length; i++) expect(groups[i]!.x - groups[i - 1]!.x).toBeGreaterThanOrEqual(gapMs);
    expect(groups.map((g) => g.events.length)).toEqual([6, 1]);
  });

  it("keeps events apart on a wide plot and drops those outside the window", () => {
    // 100 hours on 1,200 px: the gap is 2.3 hours.
    const groups = groupEvents([event(5), event(0), event(100), event(-1), event(101)], 0, 100 * HOUR, 1200);
    expect(groups.map((g) => g.events.map((e) => e.t))).toEqual([["h0"], ["h5"], ["h100"]]);
  });
});

describe("CSV of a chart", () => {
  it("quotes fields as RFC 4180 requires and ends lines with CRLF", () => {
    expect(
      toCsv(
        ["t", "v"],
        [
          ["a,b", 1],
          ['say "hi"', null],
        ],
      ),
    ).toBe('t,v\r\n"a,b",1\r\n"say ""hi""",\r\n');
  });
});

describe("log axis", () => {
  it("is bounded by the lowest level rounded down and the highest rounded up, both ticks", () => {
    const { domain, ticks } = logAxis([{ y: 97.123 }, { y: 140.456 }, { y: 120 }]) as {
      domain: [number, number];
      ticks: number[];
    };
    expect(domain).toEqual([97.12, 140.46]);
    expect(ticks).toHaveLength(5);
    expect(ticks[0]).toBe(97.12);
    expect(ticks[4]).toBe(140.46);
    // evenly spaced on the log scale
    const steps = ticks.slice(1).map((t, i) => Math.log(t / ticks[i]!));
    for (const s of steps) expect(s).toBeCloseTo(steps[0]!, 12);
  });

  it("opens a flat series around its level and ignores what a log axis cannot draw", () => {
    const { domain } = logAxis([{ y: 100 }, { y: 100 }, { y: 0 }, { y: Number.NaN }]) as { domain: [number, number] };
    expect(domain).toEqual([99, 101]);
    expect(logAxis([{ y: 0 }])).toEqual({});
  });
});
