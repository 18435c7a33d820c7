import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import {
  indexHistoryQuery,
  parseQuery,
  parseTimestamp,
  queryParams,
  rangeOf,
  reconstitutionsQuery,
  volatilityHistoryQuery,
} from "@/lib/api/params";

describe("parseTimestamp", () => {
  it.each<[string, string | null]>([
    ["2026-11-20", "2026-11-20T00:00:00.000Z"],
    ["2026-11-20T13:45", "2026-11-20T13:45:00.000Z"],
    ["2026-11-20T13:45:10Z", "2026-11-20T13:45:10.000Z"],
    ["2026-11-20 13:45:10", "2026-11-20T13:45:10.000Z"],
    ["2026-11-20T13:45:10.123456789Z", "2026-11-20T13:45:10.123Z"],
    ["2026-11-20T13:45:10+02:00", "2026-11-20T11:45:10.000Z"],
    ["2026-11-20T13:45:10-0530", "2026-11-20T19:15:10.000Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["0050-01-01", "0050-01-01T00:00:00.000Z"],
    ["0099-12-31T23:59:59Z", "0099-12-31T23:59:59.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["2026-02-29", null],
    ["2026-02-31", null],
    ["2026-13-01", null],
    ["2026-11-20T25:00:00Z", null],
    ["20261120", null],
    ["yesterday", null],
    ["", null],
    ["9".repeat(50), null],
    ["2026-11-20T13:45:10Zjunk", null],
  ])("%s", (raw, expected) => {
    const parsed = parseTimestamp(raw);
    expect(parsed === null ? null : parsed.toISOString().replace(/^\+?0*(\d{4})/, "$1")).toBe(expected);
  });
});

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("no refusal");
}

describe("query parameters", () => {
  it.each<
    [
      string,
      typeof reconstitutionsQuery | typeof volatilityHistoryQuery | typeof indexHistoryQuery,
      string,
      Record<string, unknown>,
    ]
  >([
    ["reconstitutions default limit", reconstitutionsQuery, "", { limit: 20 }],
    ["reconstitutions limit 1", reconstitutionsQuery, "limit=1", { limit: 1 }],
    ["reconstitutions limit 50", reconstitutionsQuery, "limit=50", { limit: 50 }],
    ["repeated parameter: the first wins", reconstitutionsQuery, "limit=3&limit=40", { limit: 3 }],
    ["unknown parameters are ignored", reconstitutionsQuery, "foo=bar&limit=4", { limit: 4 }],
    ["volatility defaults", volatilityHistoryQuery, "", { limit: 500, start: undefined, includeGated: false }],
    [
      "volatility limit 5000, includeGated",
      volatilityHistoryQuery,
      "limit=5000&includeGated=true",
      { limit: 5000, start: undefined, includeGated: true },
    ],
    [
      "an ancient start parses",
      volatilityHistoryQuery,
      "start=0001-01-01T00:00:00Z",
      { limit: 500, start: new Date("0001-01-01T00:00:00Z"), includeGated: false },
    ],
    [
      "index history: empty start and end are absent, interval its default",
      indexHistoryQuery,
      "start=&end=",
      { start: undefined, end: undefined, interval: "1d" },
    ],
    [
      "repeated parameters: the first value is used, for every parameter",
      indexHistoryQuery,
      "interval=1h&interval=1d&start=2026-01-02&start=x&end=2026-01-03&end=",
      { start: new Date("2026-01-02T00:00:00Z"), end: new Date("2026-01-03T00:00:00Z"), interval: "1h" },
    ],
    [
      "a repeat of a bad value after a good one is not read",
      volatilityHistoryQuery,
      "limit=5&limit=x&includeGated=true&includeGated=maybe",
      { limit: 5, start: undefined, includeGated: true },
    ],
  ])("%s", (_label, schema, query, expected) => {
    expect(parseQuery(schema, new URLSearchParams(query))).toEqual(expected);
  });

  it.each<
    [string, typeof reconstitutionsQuery | typeof volatilityHistoryQuery | typeof indexHistoryQuery, string, string]
  >([
    ["limit 0", reconstitutionsQuery, "limit=0", "limit"],
    ["limit 51", reconstitutionsQuery, "limit=51", "limit"],
    ["limit 5001", volatilityHistoryQuery, "limit=5001", "limit"],
    ["limit 1e3", volatilityHistoryQuery, "limit=1e3", "limit"],
    ["limit -1", volatilityHistoryQuery, "limit=-1", "limit"],
    ["limit 2.5", reconstitutionsQuery, "limit=2.5", "limit"],
    ["includeGated=yes", volatilityHistoryQuery, "includeGated=yes", "includeGated"],
    ["start not a date", indexHistoryQuery, "start=tomorrow", "start"],
    ["end on Feb 31", indexHistoryQuery, "end=2026-02-31", "end"],
  ])("%s is invalid_parameter naming the parameter", (_label, schema, query, name) => {
    const error = refusal(() => parseQuery(schema, new URLSearchParams(query)));
    expect(error.code).toBe("invalid_parameter");
    expect(error.message).toContain(`'${name}'`);
  });

  it.each<[string | undefined, string | null]>([
    [undefined, "1d"],
    // The spec: any value but 1h and 1d gives invalid_interval, the empty one too.
    ["", null],
    ["1h", "1h"],
    ["1d", "1d"],
    ["1H", null],
    ["5m", null],
    ["1w", null],
  ])("interval %s", (raw, expected) => {
    const parse = () =>
      parseQuery(indexHistoryQuery, new URLSearchParams(raw === undefined ? "" : `interval=${raw}`)).interval;
    if (expected) expect(parse()).toBe(expected);
    else {
      const error = refusal(parse);
      expect(error.code).toBe("invalid_interval");
      expect(error.message).toBe(`interval must be 1h or 1d, got '${raw}'.`);
    }
  });

  it("a bad start is reported before a bad interval, as the parameters are declared", () => {
    expect(refusal(() => parseQuery(indexHistoryQuery, new URLSearchParams("interval=5m&start=nope"))).code).toBe(
      "invalid_parameter",
    );
  });
});

describe("the parameter table", () => {
  it("every query parameter declares its type and description once, with the range its parser enforces", () => {
    for (const schema of [indexHistoryQuery, reconstitutionsQuery, volatilityHistoryQuery]) {
      for (const p of queryParams(schema)) {
        expect(p.description.length, p.name).toBeGreaterThan(10);
        expect(["string", "integer", "boolean"]).toContain(p.type);
        if (p.type === "integer") {
          // The declared bounds are the parser's: the bound passes, one beyond is refused.
          const at = (n: number) => () => parseQuery(schema, new URLSearchParams(`${p.name}=${n}`));
          expect(at(p.minimum!)).not.toThrow();
          expect(at(p.maximum!)).not.toThrow();
          expect(refusal(at(p.minimum! - 1)).code).toBe("invalid_parameter");
          expect(refusal(at(p.maximum! + 1)).code).toBe("invalid_parameter");
          expect((parseQuery(schema, new URLSearchParams()) as Record<string, unknown>)[p.name]).toBe(p.default);
        }
      }
    }
    expect(rangeOf(reconstitutionsQuery, "limit")).toBe("limit 1 to 50, default 20");
    expect(rangeOf(volatilityHistoryQuery, "limit")).toBe("limit 1 to 5000, default 500");
  });
});
