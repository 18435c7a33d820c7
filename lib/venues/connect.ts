import type { Config } from "@/lib/config";
import { VenueBudget, VenueHttp } from "./http";
import { KalshiConnector } from "./kalshi";
import { PolymarketConnector } from "./polymarket";
import type { VenueConnector, VenueName } from "./types";

/** Where the venues answer and how hard this process may ask them. */
export interface VenueEndpoints {
  polymarketGammaUrl: string;
  polymarketClobUrl: string;
  kalshiApiUrl: string;
  concurrency: number;
  /** requests per second per venue (POLYMARKET_RPS, KALSHI_RPS); none when unset */
  rps?: Partial<Record<VenueName, number>>;
  timeoutMs: number;
  /** tests shorten the backoff; production keeps the default */
  backoffMs?: number;
}

/** Where an operator command writes, and the configuration it reads (tests give their own). */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  /** tests shorten the venues' backoff */
  endpoints?: Partial<VenueEndpoints>;
}

/** The venue addresses and limits of the configuration (the collector's settings). */
export function venueEndpoints(
  c: Pick<
    Config,
    | "POLYMARKET_GAMMA_URL"
    | "POLYMARKET_CLOB_URL"
    | "KALSHI_API_URL"
    | "COLLECT_CONCURRENCY"
    | "COLLECT_TIMEOUT_MS"
    | "POLYMARKET_RPS"
    | "KALSHI_RPS"
  >,
): VenueEndpoints {
  const base = (url: string) => url.replace(/\/+$/, "");
  return {
    polymarketGammaUrl: base(c.POLYMARKET_GAMMA_URL),
    polymarketClobUrl: base(c.POLYMARKET_CLOB_URL),
    kalshiApiUrl: base(c.KALSHI_API_URL),
    concurrency: c.COLLECT_CONCURRENCY,
    rps: { polymarket: c.POLYMARKET_RPS, kalshi: c.KALSHI_RPS },
    timeoutMs: c.COLLECT_TIMEOUT_MS,
  };
}

/** The venues one process asks: their addresses, and one request budget per venue that all its jobs share. */
export interface Venues {
  endpoints: VenueEndpoints;
  /**
   * A job's client of `venue`: its own count of requests and kept responses, within the venue's
   * budget (COLLECT_CONCURRENCY in flight, POLYMARKET_RPS / KALSHI_RPS started per second) shared
   * by every job of the process, so a collector run and a back-calculation at once stay within it.
   */
  http(venue: VenueName, options?: { keepRaw?: boolean }): VenueHttp;
  /** The venue's connector over a job's client (`keepRaw` as for `http`). */
  connect(venue: VenueName, options?: { keepRaw?: boolean }): { http: VenueHttp; connector: VenueConnector };
}

/** `observe`: told of each venue request's outcome (status 0: no answer) and its documented endpoint, for the metrics. */
export function createVenues(
  e: VenueEndpoints,
  observe?: (venue: VenueName, url: string, status: number, endpoint: string | undefined) => void,
): Venues {
  const budgets = new Map<VenueName, VenueBudget>();
  const budgetOf = (venue: VenueName) =>
    budgets.get(venue) ?? budgets.set(venue, new VenueBudget(e.concurrency, e.rps?.[venue])).get(venue)!;
  const http = (venue: VenueName, options: { keepRaw?: boolean } = {}) =>
    new VenueHttp({
      venue,
      budget: budgetOf(venue),
      timeoutMs: e.timeoutMs,
      backoffMs: e.backoffMs,
      keepRaw: options.keepRaw,
      observe: observe && ((url, status, endpoint) => observe(venue, url, status, endpoint)),
    });
  return {
    endpoints: e,
    http,
    connect(venue, options) {
      const client = http(venue, options);
      const connector =
        venue === "polymarket"
          ? new PolymarketConnector(client, e.polymarketGammaUrl, e.polymarketClobUrl)
          : new KalshiConnector(client, e.kalshiApiUrl);
      return { http: client, connector };
    },
  };
}
