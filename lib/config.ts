import { z } from "zod";

// Configuration is read here, once, and nowhere else. A bad value fails the start.
const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  // Identical servers in a node:cluster sharing PORT (lib/server/http-server.ts).
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  // SIGTERM/SIGINT: the server stops accepting, answers what is under way, closes idle
  // connections, flushes usage and exits within this many ms (lib/server/drain.ts).
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  // /metrics answers loopback, or a request with `Authorization: Bearer <METRICS_TOKEN>`.
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .or(z.literal("").transform(() => undefined)),
  // One JSON line per answered request (the access log); 0 turns it off.
  ACCESS_LOG: bool.default(true),
  // The most bytes of stdout lines held in memory while nothing reads stdout; lines past it are
  // dropped and counted (pmb_log_lines_dropped_total), never left to grow the heap.
  LOG_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(16_384)
    .max(1_073_741_824)
    .default(16 * 1024 * 1024),
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  DATA_DIR: z
    .string()
    .default(".data")
    .transform((v) => v || ".data"),
  // PostgreSQL: a query not answered, or a pooled connection not obtained, within this many ms
  // fails (the request then gets 503 unavailable); a background job's query (the engine, the
  // collector, bundle builds, operator tools) within DB_JOB_TIMEOUT_MS.
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  DB_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  REDIS_URL: z
    .string()
    .url()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  REDIS_PREFIX: z.string().default("pmb:"),
  // A Redis command not answered within this many ms fails (the request then gets 503 unavailable).
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(20).max(10_000).default(200),
  PUBLIC_BASE_URL: z.string().url().optional(),
  AUTH_SECRET: z.string().min(16).optional(),
  EMAIL_SERVER: z.string().optional(),
  EMAIL_FROM: z.string().default("Benchmarks <no-reply@localhost>"),
  FREE_MAIL_DOMAINS: z.string().optional(),
  TRUST_PROXY: bool.default(false),
  DEMO_MARKET: bool.optional(),
  DEMO_SEED: z.coerce.number().int().default(20261121),
  // The catalog of indices and volatility series (JSON, /docs/catalog); default with the demo: catalog/demo.json.
  CATALOG_FILE: z
    .string()
    .optional()
    .or(z.literal("").transform(() => undefined)),
  POLYMARKET_GAMMA_URL: z.string().url().default("https://gamma-api.polymarket.com"),
  POLYMARKET_CLOB_URL: z.string().url().default("https://clob.polymarket.com"),
  // the canonical host since 2026 (the shared api.elections.kalshi.com still answers): https://docs.kalshi.com/getting_started/api_environments
  KALSHI_API_URL: z.string().url().default("https://external-api.kalshi.com/trade-api/v2"),
  // Venue collector: requests in flight per venue, and the timeout of one request.
  COLLECT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  COLLECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  // Requests per second per venue, besides the concurrency cap; defaults below the venues'
  // published limits: Polymarket Gamma `/markets` 300 per 10 s (the tightest endpoint read),
  // Kalshi's Basic tier 200 read tokens a second at 10 tokens a request, a batch billed per item
  // (https://docs.kalshi.com/getting_started/rate_limits): KALSHI_RPS is that budget / 10, and a
  // batch of n tickers takes n of it (lib/venues/http.ts).
  POLYMARKET_RPS: z.coerce.number().positive().max(1000).default(25),
  KALSHI_RPS: z.coerce.number().positive().max(1000).default(15),
  ENGINE_TICK_SECONDS: z.coerce.number().int().min(1).default(3600),
  ENGINE_SCHEDULER: bool.default(true),
  ATTRIBUTION: z.string().default("Data: PM Benchmarks (pmbench). Benchmark values are provided for information only."),
  LICENSE_URL: z.string().url().optional(),
  TERMS_URL: z.string().url().optional(),
  FREE_LIMIT_MINUTE: z.coerce.number().int().min(1).default(60),
  FREE_LIMIT_DAY: z.coerce.number().int().min(1).default(2000),
  // The per-address throttle before key resolution: 10 x the free per-key minute rate (DESIGN.md section 2).
  IP_LIMIT_MINUTE: z.coerce.number().int().min(1).default(600),
  METERING_FLUSH_MS: z.coerce.number().int().min(50).default(2000),
  // Days the request log (the portal's recent requests of a key) keeps a request; older rows are pruned hourly.
  REQUEST_LOG_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  ALLOWED_ORIGINS: z.string().optional(),
  // Portal sign-in: show /dev/outbox to any client (not only loopback) when no EMAIL_SERVER is set.
  DEV_OUTBOX: bool.default(false),
  // Portal sign-in: magic links per hour per e-mail address and per client address.
  MAIL_LIMIT_ADDRESS: z.coerce.number().int().min(1).default(5),
  MAIL_LIMIT_CLIENT: z.coerce.number().int().min(1).default(30),
});

export type Config = z.infer<typeof schema> & {
  embedded: boolean;
  baseUrl: string;
  demoMarket: boolean;
  licenseUrl: string;
  termsUrl: string;
  freeMailDomains: string[];
};

const DEFAULT_FREE_MAIL =
  "gmail.com,googlemail.com,yahoo.com,yahoo.co.uk,hotmail.com,outlook.com,live.com,msn.com,aol.com,icloud.com,me.com,mac.com,gmx.com,gmx.de,gmx.net,web.de,mail.com,proton.me,protonmail.com,yandex.com,yandex.ru,mail.ru,qq.com,163.com,zoho.com,tutanota.com,fastmail.com";

let cached: Config | null = null;

export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${issues}`);
  }
  const c = parsed.data;
  const baseUrl = (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, "");
  const embedded = !c.DATABASE_URL;
  return {
    ...c,
    embedded,
    baseUrl,
    // The demo feeds the engine by default only in the embedded default with no catalog of one's own.
    demoMarket: c.DEMO_MARKET ?? (!c.DATABASE_URL && !c.CATALOG_FILE),
    licenseUrl: c.LICENSE_URL ?? `${baseUrl}/license`,
    termsUrl: c.TERMS_URL ?? `${baseUrl}/terms`,
    freeMailDomains: (c.FREE_MAIL_DOMAINS ?? DEFAULT_FREE_MAIL)
      .split(",")
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  };
}

export function config(): Config {
  cached ??= parseConfig();
  return cached;
}
