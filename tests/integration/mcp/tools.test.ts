import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newKey } from "../support/api";
import {
  TOOL_NAMES,
  callTool,
  catalogTickers,
  connect,
  expectSameError,
  structured,
  texts,
  v1Path,
  withoutGeneratedAt,
  type Args,
  type ToolName,
} from "./support";

const DAY_MS = 86_400_000;
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

let key: string;
let client: Client;
let tickers: { index: string; volatility: string };

beforeAll(async () => {
  ({ key } = await newKey());
  tickers = await catalogTickers(key);
  client = await connect(key);
});

afterAll(async () => {
  await client?.close();
});

describe("tools/list", () => {
  it("lists the nine tools, each annotated read-only, idempotent and closed-world", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
        destructiveHint: false,
      });
      expect(tool.description, tool.name).toMatch(/GET \/v1/);
      expect(tool.inputSchema.type).toBe("object");
    }
  });

  it("advertises the /v1 parameter rules: ranges, intervals and a required ticker", async () => {
    const { tools } = await client.listTools();
    const schema = (name: ToolName) => tools.find((t) => t.name === name)!.inputSchema;
    expect(schema("get_index_history").required).toEqual(["ticker"]);
    expect(schema("get_index_history").properties).toMatchObject({
      interval: { type: "string", enum: ["1h", "1d"], default: "1d" },
    });
    expect(schema("get_index_reconstitutions").properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 50, default: 20 },
    });
    expect(schema("get_volatility_history").properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 5000, default: 500 },
      includeGated: { type: "boolean", default: false },
      start: { type: "string" },
    });
    expect(schema("list_indices").properties ?? {}).toEqual({});
  });

  it("advertised defaults are the ones /v1 applies (the same request with and without them gives the same data)", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { default?: string | number | boolean }>;
      const ticker = tool.name.includes("volatility") ? tickers.volatility : tickers.index;
      for (const [name, property] of Object.entries(properties)) {
        if (property.default === undefined) continue;
        const start = day(-5);
        const bare = await call(v1Path(tool.name as ToolName, { ticker, start }), { key });
        const explicit = await call(v1Path(tool.name as ToolName, { ticker, start, [name]: property.default }), {
          key,
        });
        expect(explicit.status, `${tool.name}.${name}`).toBe(200);
        expect(explicit.body.data, `${tool.name}.${name}`).toEqual(bare.body.data);
      }
    }
  });
});

describe("every tool returns the /v1 body for the same arguments", () => {
  const cases: Array<[ToolName, () => Args]> = [
    ["list_indices", () => ({})],
    ["get_index_latest", () => ({ ticker: tickers.index })],
    ["get_index_latest", () => ({ ticker: tickers.index.toLowerCase() })],
    ["get_index_history", () => ({ ticker: tickers.index })],
    ["get_index_history", () => ({ ticker: tickers.index, start: day(-10), end: day(-1), interval: "1h" })],
    ["get_index_history", () => ({ ticker: tickers.index, start: day(-400), end: day(-1) })],
    ["get_index_reconstitutions", () => ({ ticker: tickers.index })],
    ["get_index_reconstitutions", () => ({ ticker: tickers.index, limit: 1 })],
    ["list_volatility", () => ({})],
    ["get_volatility_latest", () => ({ ticker: tickers.volatility })],
    ["get_volatility_history", () => ({ ticker: tickers.volatility, start: day(-3) })],
    ["get_volatility_history", () => ({ ticker: tickers.volatility, start: day(-3), limit: 5, includeGated: true })],
    ["get_downloads", () => ({})],
  ];

  it.each(cases)("%s", async (tool, makeArgs) => {
    const args = makeArgs();
    const result = await callTool(client, tool, args);
    const v1 = await call(v1Path(tool, args), { key });
    expect(v1.status, JSON.stringify(v1.body)).toBe(200);
    expect(result.isError ?? false, JSON.stringify(result.structuredContent)).toBe(false);
    const body = structured(result);
    expect(Object.keys(body).sort()).toEqual(["data", "meta"]);
    expect(body.data).toEqual(v1.body.data);
    // A window edge that defaults to (or is clamped to) "now" moves between the two calls.
    const strip = (meta: Record<string, unknown>) => {
      const rest = withoutGeneratedAt(meta);
      if (!("end" in args)) delete rest.effectiveEnd;
      if (!("start" in args) || meta.clamped === true) delete rest.effectiveStart;
      return rest;
    };
    expect(strip(body.meta)).toEqual(strip(v1.body.meta));
    expect(body.meta.attribution).toEqual(expect.any(String));
    const [summary, json] = texts(result);
    expect(summary).toContain(body.meta.attribution);
    expect(JSON.parse(json!)).toEqual(body);
  });

  it("get_quota returns GET /v1's data, and remaining goes down by one per call", async () => {
    const v1 = await call("/v1", { key });
    const first = structured(await callTool(client, "get_quota"));
    const second = structured(await callTool(client, "get_quota"));
    expect(Object.keys(first.data).sort()).toEqual(Object.keys(v1.body.data).sort());
    expect(Object.keys(first.data.key).sort()).toEqual(Object.keys(v1.body.data.key).sort());
    expect({ ...first.data, key: undefined }).toEqual({ ...v1.body.data, key: undefined });
    expect(first.data.key.prefix).toBe(v1.body.data.key.prefix);
    expect(first.data.key.remainingMinute).toBeLessThan(v1.body.data.key.remainingMinute);
    expect(second.data.key.remainingMinute).toBe(first.data.key.remainingMinute - 1);
    expect(second.data.key.remainingDay).toBe(first.data.key.remainingDay - 1);
  });
});

describe("text renderings", () => {
  it("a volatility value is quoted with its tenor and definition line", async () => {
    const result = await callTool(client, "get_volatility_latest", { ticker: tickers.volatility });
    const { data } = structured(result);
    const quoted = data.published ?? data.tick;
    const line = `${quoted.headlinePts.toFixed(2)} pts over ${quoted.headlineTenorDays} days — ${data.series.definitionLine}`;
    expect(texts(result)[0]).toContain(line);
  });

  it("the volatility catalog and history quote values the same way", async () => {
    const catalog = await callTool(client, "list_volatility");
    const entry = structured(catalog).data.series[0];
    expect(texts(catalog)[0]).toContain(
      `${entry.headlinePts.toFixed(2)} pts over ${entry.headlineTenorDays} days — ${entry.definitionLine}`,
    );
    const history = await callTool(client, "get_volatility_history", { ticker: tickers.volatility, limit: 3 });
    const { data } = structured(history);
    if (data.points.length) {
      expect(texts(history)[0]).toContain(
        `${data.points[0].headlinePts.toFixed(2)} pts over ${data.series.headlineTenorDays} days — ${data.series.definitionLine}`,
      );
    }
  });
});

describe("errors are the /v1 errors for the same request", () => {
  const cases: Array<[string, ToolName, () => Args, string]> = [
    ["unknown index ticker", "get_index_latest", () => ({ ticker: "NO-SUCH-INDEX" }), "not_found"],
    ["unknown volatility ticker", "get_volatility_history", () => ({ ticker: "NO-SUCH-SERIES" }), "not_found"],
    [
      "reconstitutions limit below range",
      "get_index_reconstitutions",
      () => ({ ticker: tickers.index, limit: 0 }),
      "invalid_parameter",
    ],
    [
      "reconstitutions limit above range",
      "get_index_reconstitutions",
      () => ({ ticker: tickers.index, limit: 51 }),
      "invalid_parameter",
    ],
    [
      "non-integer limit",
      "get_volatility_history",
      () => ({ ticker: tickers.volatility, limit: 2.5 }),
      "invalid_parameter",
    ],
    [
      "volatility limit above range",
      "get_volatility_history",
      () => ({ ticker: tickers.volatility, limit: 5001 }),
      "invalid_parameter",
    ],
    [
      "includeGated not a boolean",
      "get_volatility_history",
      () => ({ ticker: tickers.volatility, includeGated: "yes" }),
      "invalid_parameter",
    ],
    [
      "unparseable date",
      "get_index_history",
      () => ({ ticker: tickers.index, start: "2026-02-31" }),
      "invalid_parameter",
    ],
    ["interval", "get_index_history", () => ({ ticker: tickers.index, interval: "5m" }), "invalid_interval"],
    [
      "start not before end",
      "get_index_history",
      () => ({ ticker: tickers.index, start: day(-2), end: day(-3) }),
      "invalid_window",
    ],
  ];

  it.each(cases)("%s", async (_, tool, makeArgs, code) => {
    const args = makeArgs();
    const result = await callTool(client, tool, args);
    expectSameError(result, await call(v1Path(tool, args), { key }), code);
    expect(structured(result).error.docsUrl).toMatch(new RegExp(`/docs/errors#${code}$`));
  });

  it("a missing ticker is the API's invalid_parameter, naming the argument", async () => {
    const result = await client.callTool({ name: "get_index_latest", arguments: {} });
    expect(result.isError).toBe(true);
    const { error } = structured(result as Parameters<typeof structured>[0]);
    expect(error.code).toBe("invalid_parameter");
    expect(error.message).toMatch(/'ticker'/);
    expect(error.docsUrl).toMatch(/\/docs\/errors#invalid_parameter$/);
  });

  it("an argument of another JSON type gets the /v1 error for the same text", async () => {
    const args = { ticker: tickers.index, limit: "twenty" };
    const result = await callTool(client, "get_index_reconstitutions", args);
    expectSameError(result, await call(v1Path("get_index_reconstitutions", args), { key }), "invalid_parameter");
    const object = await client.callTool({
      name: "get_volatility_history",
      arguments: { ticker: tickers.volatility, includeGated: { on: true } },
    });
    expect(structured(object as Parameters<typeof structured>[0]).error.code).toBe("invalid_parameter");
  });

  it("an empty ticker is not_found, like an unknown one", async () => {
    const result = await callTool(client, "get_volatility_latest", { ticker: "" });
    expect(structured(result).error.code).toBe("not_found");
  });

  it("the limits at the edges of the advertised range are accepted", async () => {
    for (const [tool, ticker, limit] of [
      ["get_index_reconstitutions", tickers.index, 1],
      ["get_index_reconstitutions", tickers.index, 50],
      ["get_volatility_history", tickers.volatility, 1],
      ["get_volatility_history", tickers.volatility, 5000],
    ] as const) {
      const result = await callTool(client, tool, { ticker, limit });
      expect(result.isError ?? false, `${tool} limit=${limit}`).toBe(false);
    }
  });
});
