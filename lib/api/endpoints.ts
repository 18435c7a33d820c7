import "server-only";
import type { z } from "zod";
import { ApiError, errorMessage } from "@/lib/api/errors";
import type { SerializedData } from "@/lib/api/responses";
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
 * The JSON of a history's `data`, kept by its points: the read model hands out the same frozen
 * points array for the same window while its version stands (lib/data/indices.ts), so a 90-day
 * history is serialized once per version of the read model (and deflated once for gzip clients),
 * and a new level (a new array) is serialized afresh.
 */
const serialized = new WeakMap<readonly unknown[], SerializedData>();

function serializedOnce(points: readonly unknown[], data: unknown): SerializedData {
  let kept = serialized.get(points);
  if (kept === undefined) serialized.set(points, (kept = { json: JSON.stringify(data) }));
  return kept;
}

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
  indexLatest: serve("indexLatest", async ({ services, params }) => ({
    data: (await indexLatest(services.read, ticker(params))) ?? notFound(ticker(params)),
  })),
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
      serialized: serializedOnce(points, data),
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
  volatilityLatest: serve("volatilityLatest", async ({ services, params }) => ({
    data: (await volatilityLatest(services.read, ticker(params))) ?? notFound(ticker(params)),
  })),
  volatilityHistory: serve("volatilityHistory", async ({ services, params }, q) => {
    const window = resolveWindow(new Date(services.clock.now()), q.start);
    const history = await volatilityHistory(services.read, ticker(params), {
      start: window.start,
      end: window.end,
      limit: q.limit,
      includeGated: q.includeGated,
    });
    if (!history) notFound(ticker(params));
    return {
      data: {
        count: history.points.length,
        points: history.points,
        series: history.series,
        windowStart: iso6(window.start),
      },
      meta: { effectiveStart: iso6(window.start), clamped: window.clamped, historyMaxDays: HISTORY_MAX_DAYS },
    };
  }),
  downloads: serve("downloads", async () => ({ data: downloadsPointer() })),
} satisfies Record<EndpointName, Endpoint>;
