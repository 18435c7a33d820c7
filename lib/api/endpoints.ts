import "server-only";
import { ApiError, errorMessage } from "@/lib/api/errors";
import { iso6 } from "@/lib/time-format";
import {
  HISTORY_MAX_DAYS,
  INTERVALS,
  indexHistoryQuery,
  parseInterval,
  parseQuery,
  rangeOf,
  reconstitutionsQuery,
  volatilityHistoryQuery,
} from "@/lib/api/params";
import type { Handler, Payload } from "@/lib/api/pipeline";
import { andThen } from "@/lib/awaitable";
import { resolveWindow } from "@/lib/data/window";
import { config } from "@/lib/config";
import { downloadsPointer } from "@/lib/data/downloads";
import { indexHistory, indexLatest, indexReconstitutions, listIndices } from "@/lib/data/indices";
import { listVolatility, volatilityHistory, volatilityLatest } from "@/lib/data/volatility";

export interface Endpoint {
  /** Route template, also the usage-metering label. */
  path: string;
  description: string;
  handler: Handler;
}

function notFound(ticker: string): never {
  throw new ApiError("not_found", { message: errorMessage("not_found", { ticker: ticker.slice(0, 64) }) });
}

const ticker = (params: Record<string, string>) => params.ticker ?? "";

/** Every /v1 endpoint: one table that the routes, MCP tools, OpenAPI and docs share. */
export const endpoints = {
  service: {
    path: "/v1",
    description: "Service index and the calling key's quota (counts as one request).",
    handler: ({ key, decision }): Payload => {
      const c = config();
      return {
        data: {
          version: "v1",
          docsUrl: `${c.baseUrl}/docs`,
          endpoints: Object.values(endpoints as Record<string, Endpoint>).map((e) => ({ path: e.path, description: e.description })),
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
    },
  },
  indices: {
    path: "/v1/indices",
    description: "Catalog of indices.",
    handler: () => andThen(listIndices(), (data) => ({ data })),
  },
  indexLatest: {
    path: "/v1/indices/{ticker}/latest",
    description: "Latest level of an index.",
    handler: ({ params }) => andThen(indexLatest(ticker(params)), (data) => ({ data: data ?? notFound(ticker(params)) })),
  },
  indexHistory: {
    path: "/v1/indices/{ticker}/history",
    description: "Level history, oldest first, within the trailing 90-day window (interval 1h or 1d).",
    handler: async ({ params, query }) => {
      const q = parseQuery(indexHistoryQuery, query);
      const interval = parseInterval(q.interval);
      const window = resolveWindow(new Date(), q.start, q.end);
      const history = await indexHistory(ticker(params), { start: window.start, end: window.end, interval });
      if (!history) notFound(ticker(params));
      const points = window.empty ? [] : history.points;
      return {
        data: { ticker: history.ticker, interval, count: points.length, points },
        meta: { effectiveStart: iso6(window.start), effectiveEnd: iso6(window.end), clamped: window.clamped, historyMaxDays: HISTORY_MAX_DAYS },
      };
    },
  },
  indexReconstitutions: {
    path: "/v1/indices/{ticker}/reconstitutions",
    description: `Reconstitution events, newest first (${rangeOf(reconstitutionsQuery, "limit")}).`,
    handler: async ({ params, query }) => {
      const { limit } = parseQuery(reconstitutionsQuery, query);
      const result = (await indexReconstitutions(ticker(params), limit)) ?? notFound(ticker(params));
      return { data: { ticker: result.ticker, count: result.events.length, events: result.events } };
    },
  },
  volatility: {
    path: "/v1/volatility",
    description: "Catalog of published volatility series with their latest published headline.",
    handler: () => andThen(listVolatility(), (data) => ({ data })),
  },
  volatilityLatest: {
    path: "/v1/volatility/{ticker}/latest",
    description: "Series definition and latest computation (status and publication state included).",
    handler: ({ params }) => andThen(volatilityLatest(ticker(params)), (data) => ({ data: data ?? notFound(ticker(params)) })),
  },
  volatilityHistory: {
    path: "/v1/volatility/{ticker}/history",
    description: `Volatility history, newest first (${rangeOf(volatilityHistoryQuery, "limit")}; includeGated=true adds withheld computations).`,
    handler: async ({ params, query }) => {
      const q = parseQuery(volatilityHistoryQuery, query);
      const window = resolveWindow(new Date(), q.start);
      const history = await volatilityHistory(ticker(params), { start: window.start, end: window.end, limit: q.limit, includeGated: q.includeGated });
      if (!history) notFound(ticker(params));
      return {
        data: { count: history.points.length, points: history.points, series: history.series, windowStart: iso6(window.start) },
        meta: { effectiveStart: iso6(window.start), clamped: window.clamped, historyMaxDays: HISTORY_MAX_DAYS },
      };
    },
  },
  downloads: {
    path: "/v1/downloads",
    description: "Where the monthly snapshot bundles and their latest manifest are.",
    handler: () => ({ data: downloadsPointer() }),
  },
} satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof endpoints;
