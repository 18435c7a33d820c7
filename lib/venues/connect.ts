import type { Config } from "@/lib/config";
import { VenueHttp } from "./http";
import { KalshiConnector } from "./kalshi";
import { PolymarketConnector } from "./polymarket";
import type { VenueName } from "./types";

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
  c: Pick<Config, "POLYMARKET_GAMMA_URL" | "POLYMARKET_CLOB_URL" | "KALSHI_API_URL" | "COLLECT_CONCURRENCY" | "COLLECT_TIMEOUT_MS" | "POLYMARKET_RPS" | "KALSHI_RPS">,
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

export const httpFor = (venue: VenueName, e: VenueEndpoints) => new VenueHttp({ venue, concurrency: e.concurrency, rps: e.rps?.[venue], timeoutMs: e.timeoutMs, backoffMs: e.backoffMs });

/** A venue's connector over its own rate-limited HTTP client. */
export function connectorFor(venue: VenueName, e: VenueEndpoints) {
  const http = httpFor(venue, e);
  const connector = venue === "polymarket" ? new PolymarketConnector(http, e.polymarketGammaUrl, e.polymarketClobUrl) : new KalshiConnector(http, e.kalshiApiUrl);
  return { http, connector };
}
