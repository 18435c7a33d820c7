import "server-only";
import type { z } from "zod";
import { ApiError, errorMessage } from "@/lib/api/errors";
import { serializedData, type SerializedData } from "@/lib/api/responses";
import { iso6 } from "@/lib/time-format";
import { ENDPOINTS, type EndpointName, type EndpointSpec } from "@/lib/api/endpoint-table";
import { HISTORY_MAX_DAYS, INTERVALS, parseQuery } from "@/lib/api/params";
import type { Handler, KeyedContext, Payload } from "@/lib/api/pipeline";
import { resolveWindow } from "@/lib/data/window";
import { downloadsPointer } from "@/lib/data/downloads";
import { indexHistory, indexLatest, indexReconstitutions, listIndices } from "@/lib/data/indices";
import { listVolatility, volatilityHistory, volatilityLatest } from "@/lib/data/volatility";

export type { EndpointName };

/** An endpoint of the table (lib/api/endpoint-table.ts) with the handler that answers it. */
export interface Endpoint extends EndpointSpec {
  name: EndpointName;
  handler: Handler;
}

function notFound(ticker: string): never {
  throw new ApiError("not_found", { message: errorMessage("not_found", { ticker: ticker.slice(0, 64) }) });
}

const ticker = (params: Record<string, string>) => params.ticker ?? "";

const NO_QUERY = Object.freeze({});

/** The parsed query of an endpoint: its query schema's output, or nothing. */
type QueryOf<N extends EndpointName> = (typeof ENDPOINTS)[N] extends { query: infer S extends z.ZodType }
  ? z.output<S>
  : Record<string, never>;

/**
 * The table's entry `name` answered by `run`: the query is parsed with the endpoint's own schema
 * (its errors: invalid_parameter, or the parameter's own code) before `run` sees it.
 */
function serve<N extends EndpointName>(
  name: N,
  run: (ctx: KeyedContext, query: QueryOf<N>) => Promise<Payload>,
): Endpoint {
  const spec: EndpointSpec = ENDPOINTS[name];
  const schema = spec.query;
  const handler: Handler = schema
    ? (ctx) => run(ctx, parseQuery(schema, ctx.query) as QueryOf<N>)
    : (ctx) => run(ctx, NO_QUERY as QueryOf<N>);
  return { ...spec, name, handler };
}

/**
 * A body's start, kept by the value it serializes: the read models hand out the same frozen value
 * (a latest, a history's points) while their version stands (lib/data): serialized (and deflated) once per version.
 */
const starts = new WeakMap<object, { key: string; data: SerializedData }>();

/** `key`: what the start holds beside the value (compared each time, so it must be cheap to make). */
function serializedOnce(value: object, key: string, json: () => string): SerializedData {
  let kept = starts.get(value);
  if (kept?.key !== key) starts.set(value, (kept = { key, data: serializedData(json()) }));
  return kept.data;
}

/** A latest value's answer: the value, serialized once per version. */
const latest = (data: object): Payload => ({ data, serialized: serializedOnce(data, "", () => JSON.stringify(data)) });

/** Every /v1 endpoint with its handler, in the table's order. */
export const endpoints = {
  service: serve("service", async ({ services, key, decision }) => {
    const c = services.config;
    return {
      data: {
        version: "v1",
        docsUrl: `${c.baseUrl}/docs`,
        endpoints: Object.values(ENDPOINTS).map((e) => ({ path: e.path, description: e.description })),
        limits: {
          requestsPerMinute: c.FREE_LIMIT_MINUTE,
          requestsPerDay: c.FREE_LIMIT_DAY,
          historyMaxDays: HISTORY_MAX_DAYS,
          intervals: [...INTERVALS],
        },
        key: {
          prefix: key.prefix,
          limitMinute: decision.limitMinute,
          limitDay: decision.limitDay,
          remainingMinute: decision.remainingMinute,
          remainingDay: decision.remainingDay,
        },
      },
    };
  }),
  indices: serve("indices", async ({ services }) => ({ data: await listIndices(services.read) })),
  indexLatest: serve("indexLatest", async ({ services, params }) =>
    latest((await indexLatest(services.read, ticker(params))) ?? notFound(ticker(params))),
  ),
  indexHistory: serve("indexHistory", async ({ services, params }, q) => {
    const window = resolveWindow(new Date(services.clock.now()), q.start, q.end);
    const history = await indexHistory(services.read, ticker(params), {
      start: window.start,
      end: window.end,
      interval: q.interval,
    });
    if (!history) notFound(ticker(params));
    const points = window.empty ? [] : history.points;
    const data = { ticker: history.ticker, interval: q.interval, count: points.length, points };
    return {
      data,
      serialized: serializedOnce(points, `${data.ticker} ${data.interval}`, () => JSON.stringify(data)),
      meta: {
        effectiveStart: iso6(window.start),
        effectiveEnd: iso6(window.end),
        clamped: window.clamped,
        historyMaxDays: HISTORY_MAX_DAYS,
      },
    };
  }),
  indexReconstitutions: serve("indexReconstitutions", async ({ services, params }, { limit }) => {
    const result = (await indexReconstitutions(services.read, ticker(params), limit)) ?? notFound(ticker(params));
    return { data: { ticker: result.ticker, count: result.events.length, events: result.events } };
  }),
  volatility: serve("volatility", async ({ services }) => ({ data: await listVolatility(services.read) })),
  volatilityLatest: serve("volatilityLatest", async ({ services, params }) =>
    latest((await volatilityLatest(services.read, ticker(params))) ?? notFound(ticker(params))),
  ),
  volatilityHistory: serve("volatilityHistory", async ({ services, params }, q) => {
    const window = resolveWindow(new Date(services.clock.now()), q.start);
    const history = await volatilityHistory(services.read, ticker(params), {
      start: window.start,
      end: window.end,
      limit: q.limit,
      includeGated: q.includeGated,
    });
    if (!history) notFound(ticker(params));
    const { points, series } = history;
    const seriesJson = JSON.stringify(series);
    const windowStart = iso6(window.start);
    return {
      data: { count: points.length, points, series, windowStart },
      // The data's JSON up to windowStart, kept by its points; windowStart ends it per answer.
      serialized: serializedOnce(points, seriesJson, () =>
        JSON.stringify({ count: points.length, points, series }).slice(0, -1),
      ),
      dataEnd: `,"windowStart":${JSON.stringify(windowStart)}}`,
      meta: { effectiveStart: windowStart, clamped: window.clamped, historyMaxDays: HISTORY_MAX_DAYS },
    };
  }),
  downloads: serve("downloads", async () => ({ data: downloadsPointer() })),
} satisfies Record<EndpointName, Endpoint>;
