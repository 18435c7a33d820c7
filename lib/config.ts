import { z } from "zod";

// Configuration is read here, once, and nowhere else. A bad value fails the start.
const bool = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  // Read by scripts/server.mjs before the app loads (and validated here when it does).
  HOST: z.string().min(1).default("0.0.0.0"),
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  // 0: /v1 goes through Next's router instead of the node:http adapter (lib/api/node-adapter.ts).
  PMB_DIRECT_ROUTES: bool.default(true),
  // /v1 served by a process of its own without Next, which runs Next as its child for the rest
  // (lib/server/api-process.ts): 1 on, 0 off; unset (or `auto`), on wherever it can run
  // (`apiProcessRefusal`). Read by scripts/start.mjs through `apiProcess`.
  API_PROCESS: z
    .enum(["auto", "1", "0", "true", "false", "yes", "no", ""])
    .default("auto")
    .transform((v) => (v === "auto" || v === "" ? "auto" : v === "1" || v === "true" || v === "yes" ? "on" : "off")),
  // Set by the API process for the Next process it runs (never by hand): the socket Next listens
  // on (scripts/server.mjs), and that rate limits and key revocations go through the parent.
  PMB_PAGES_SOCKET: z.string().optional(),
  PMB_API_PARENT: bool.default(false),
  DATABASE_URL: z.string().url().optional().or(z.literal("").transform(() => undefined)),
  DATA_DIR: z.string().default(".data"),
  // PostgreSQL: a query not answered, or a pooled connection not obtained, within this many ms
  // fails (the request then gets 503 unavailable); a background job's query (the engine, the
  // collector, bundle builds, operator tools) within DB_JOB_TIMEOUT_MS.
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  DB_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  REDIS_URL: z.string().url().optional().or(z.literal("").transform(() => undefined)),
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
  CATALOG_FILE: z.string().optional().or(z.literal("").transform(() => undefined)),
  POLYMARKET_GAMMA_URL: z.string().url().default("https://gamma-api.polymarket.com"),
  POLYMARKET_CLOB_URL: z.string().url().default("https://clob.polymarket.com"),
  KALSHI_API_URL: z.string().url().default("https://api.elections.kalshi.com/trade-api/v2"),
  // Venue collector: requests in flight per venue, and the timeout of one request.
  COLLECT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  COLLECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  ENGINE_TICK_SECONDS: z.coerce.number().int().min(1).default(3600),
  ENGINE_SCHEDULER: bool.default(true),
  // Tests: while this file exists, the start-up backfill waits before each chunk after the first,
  // so a test sees the server mid-backfill (pages show the progress notice) and then releases it.
  BACKFILL_PAUSE_FILE: z.string().optional().or(z.literal("").transform(() => undefined)),
  ATTRIBUTION: z
    .string()
    .default("Data: PM Benchmarks (pmbench). Benchmark values are provided for information only."),
  LICENSE_URL: z.string().url().optional(),
  TERMS_URL: z.string().url().optional(),
  FREE_LIMIT_MINUTE: z.coerce.number().int().min(1).default(60),
  FREE_LIMIT_DAY: z.coerce.number().int().min(1).default(2000),
  IP_LIMIT_MINUTE: z.coerce.number().int().min(1).default(600),
  METERING_FLUSH_MS: z.coerce.number().int().min(50).default(2000),
  ALLOWED_ORIGINS: z.string().optional(),
  // Refuse localhost origins outside production too (CORS tests of the production rule).
  PMB_STRICT_CORS: bool.default(false),
  BENCH_FLOOR: bool.default(false),
  // Portal sign-in: show /dev/outbox to any client (not only loopback) when no EMAIL_SERVER is set.
  DEV_OUTBOX: bool.default(false),
  // Portal sign-in: magic links per hour per e-mail address and per client address.
  MAIL_LIMIT_ADDRESS: z.coerce.number().int().min(1).default(5),
  MAIL_LIMIT_CLIENT: z.coerce.number().int().min(1).default(30),
});

export type Config = z.infer<typeof schema> & {
  embedded: boolean;
  /** Whether the production server runs as the API process (API_PROCESS, or where it can run when unset). */
  apiProcess: boolean;
  baseUrl: string;
  demoMarket: boolean;
  licenseUrl: string;
  termsUrl: string;
  freeMailDomains: string[];
};

const DEFAULT_FREE_MAIL =
  "gmail.com,googlemail.com,yahoo.com,yahoo.co.uk,hotmail.com,outlook.com,live.com,msn.com,aol.com,icloud.com,me.com,mac.com,gmx.com,gmx.de,gmx.net,web.de,mail.com,proton.me,protonmail.com,yandex.com,yandex.ru,mail.ru,qq.com,163.com,zoho.com,tutanota.com,fastmail.com";

let cached: Config | null = null;

/**
 * Why this configuration cannot run the API process (lib/server/api-process.ts), or null: it needs
 * PostgreSQL (the embedded PGlite is one process's database), and it is one API process beside
 * one Next process, serving /v1 without Next's router.
 */
export function apiProcessRefusal(c: Pick<Config, "embedded" | "WEB_CONCURRENCY" | "PMB_DIRECT_ROUTES">): string | null {
  if (c.embedded) return "API_PROCESS=1 needs DATABASE_URL: the embedded database is one process's, and two processes use it";
  if (c.WEB_CONCURRENCY > 1) return "API_PROCESS=1 runs one API process and one Next process; it does not combine with WEB_CONCURRENCY > 1";
  if (!c.PMB_DIRECT_ROUTES) return "API_PROCESS=1 serves /v1 without Next's router; it does not combine with PMB_DIRECT_ROUTES=0";
  return null;
}

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
    apiProcess: c.API_PROCESS === "on" || (c.API_PROCESS === "auto" && apiProcessRefusal({ ...c, embedded }) === null),
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
