import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

// The Prometheus metrics of one process (one per root, lib/root.ts), served at /metrics by the
// production server (lib/server/ops-routes.ts). Names follow the OpenTelemetry HTTP semantic
// conventions as Prometheus spells them (http_server_request_duration_seconds, seconds, `_total`
// on counters) and prefix the service's own with `pmb_`. Labels stay bounded: routes are
// templates (/v1/indices/{ticker}/latest), never raw paths.

/** Request durations: 1 ms to 10 s. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Dependency round trips: 0.1 ms to 5 s. */
const DEPENDENCY_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface Metrics {
  registry: Registry;
  /** http_server_request_duration_seconds{http_route, http_request_method, http_response_status_code} */
  httpDuration: Histogram<"http_route" | "http_request_method" | "http_response_status_code">;
  /** pmb_rate_limit_decisions_total{window, decision}: window address|minute|day|key, decision allowed|refused. */
  rateLimit: Counter<"window" | "decision">;
  /** pmb_key_cache_lookups_total{result}: hit|miss. */
  keyCache: Counter<"result">;
  /** pmb_db_query_duration_seconds{outcome} (PostgreSQL through the pool). */
  dbDuration: Histogram<"outcome">;
  /** pmb_db_errors_total{kind}: unavailable|other. */
  dbErrors: Counter<"kind">;
  /** pmb_redis_command_duration_seconds{outcome}. */
  redisDuration: Histogram<"outcome">;
  /** pmb_redis_errors_total{kind}: timeout|unavailable|reply. */
  redisErrors: Counter<"kind">;
  /** pmb_usage_flush_failures_total. */
  usageFlushFailures: Counter<never>;
  /** pmb_venue_requests_total{venue, endpoint, outcome}: ok|error. */
  venueRequests: Counter<"venue" | "endpoint" | "outcome">;
  /** pmb_outages_total{dependency}: outages begun (database, redis). */
  outages: Counter<"dependency">;
  /** pmb_log_lines_dropped_total: stdout lines dropped while LOG_BUFFER_BYTES of lines waited. */
  logLinesDropped: Counter<never>;
  /** A gauge whose value is read when scraped. */
  gauge(name: string, help: string, read: () => number | null | Promise<number | null>): void;
}

export function createMetrics(defaultLabels: Record<string, string> = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels(defaultLabels);
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpDuration: new Histogram({
      name: "http_server_request_duration_seconds",
      help: "Duration of HTTP server requests, by route template, method and status.",
      labelNames: ["http_route", "http_request_method", "http_response_status_code"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    rateLimit: new Counter({
      name: "pmb_rate_limit_decisions_total",
      help: "Rate-limit decisions by window (address throttle, key minute and day windows; key = admitted by both).",
      labelNames: ["window", "decision"],
      registers,
    }),
    keyCache: new Counter({
      name: "pmb_key_cache_lookups_total",
      help: "API key lookups by result: hit (resolved in process) or miss (read from the database).",
      labelNames: ["result"],
      registers,
    }),
    dbDuration: new Histogram({
      name: "pmb_db_query_duration_seconds",
      help: "PostgreSQL query round trips (pool), by outcome.",
      labelNames: ["outcome"],
      buckets: DEPENDENCY_BUCKETS,
      registers,
    }),
    dbErrors: new Counter({
      name: "pmb_db_errors_total",
      help: "Database failures: unavailable (cannot serve now) or other.",
      labelNames: ["kind"],
      registers,
    }),
    redisDuration: new Histogram({
      name: "pmb_redis_command_duration_seconds",
      help: "Redis command round trips, by outcome.",
      labelNames: ["outcome"],
      buckets: DEPENDENCY_BUCKETS,
      registers,
    }),
    redisErrors: new Counter({
      name: "pmb_redis_errors_total",
      help: "Redis command failures: timeout, unavailable (not connected) or reply (an error answer).",
      labelNames: ["kind"],
      registers,
    }),
    usageFlushFailures: new Counter({
      name: "pmb_usage_flush_failures_total",
      help: "Usage flushes to the database that failed (their batches are kept and retried).",
      registers,
    }),
    venueRequests: new Counter({
      name: "pmb_venue_requests_total",
      help: "Requests to the venues' APIs, by venue, endpoint and outcome.",
      labelNames: ["venue", "endpoint", "outcome"],
      registers,
    }),
    outages: new Counter({
      name: "pmb_outages_total",
      help: "Dependency outages begun (one per outage, not per failed request).",
      labelNames: ["dependency"],
      registers,
    }),
    logLinesDropped: new Counter({
      name: "pmb_log_lines_dropped_total",
      help: "Log lines dropped because stdout was not read while LOG_BUFFER_BYTES of lines waited.",
      registers,
    }),
    gauge(name, help, read) {
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          try {
            const value = await read();
            if (value === null) this.reset();
            else this.set(value);
          } catch {
            this.reset();
          }
        },
      });
    },
  };
}
