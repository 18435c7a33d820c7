import { errorFor, PmbError, RateLimitError, ServerError } from "./errors.js";
import type { components } from "./openapi.js";
import { parseBody, type Parsed } from "./parse.js";

type Wire = components["schemas"];

export type ServiceIndex = Parsed<Wire["ServiceIndex"]>;
export type IndexCatalog = Parsed<Wire["IndexCatalog"]>;
export type IndexCatalogEntry = Parsed<Wire["IndexCatalogEntry"]>;
export type IndexLatest = Parsed<Wire["IndexLatest"]>;
export type IndexHistory = Parsed<Wire["IndexHistory"]>;
export type IndexLevelPoint = Parsed<Wire["IndexLevelPoint"]>;
export type Reconstitutions = Parsed<Wire["Reconstitutions"]>;
export type ReconstitutionEvent = Parsed<Wire["ReconstitutionEvent"]>;
export type VolatilityCatalog = Parsed<Wire["VolatilityCatalog"]>;
export type VolatilityLatest = Parsed<Wire["VolatilityLatest"]>;
export type VolatilityTick = Parsed<Wire["VolatilityTick"]>;
export type VolatilityHistory = Parsed<Wire["VolatilityHistory"]>;
export type VolatilityHistoryPoint = Parsed<Wire["VolatilityHistoryPoint"]>;
export type SeriesDefinition = Parsed<Wire["SeriesDefinition"]>;
export type DownloadsPointer = Parsed<Wire["DownloadsPointer"]>;
export type Meta = Parsed<Wire["Meta"]>;
export type IndexHistoryMeta = Parsed<Wire["IndexHistoryMeta"]>;
export type VolatilityHistoryMeta = Parsed<Wire["VolatilityHistoryMeta"]>;

/** The calling key's quota, read from the X-RateLimit-* headers of the last keyed response. */
export interface Quota {
  limitMinute: number;
  remainingMinute: number;
  /** When the minute window has room again (X-RateLimit-Reset). */
  resetMinute: Date;
  limitDay: number;
  remainingDay: number;
  resetDay: Date;
}

/** One successful call: `data`, `meta`, the quota after it and the request id. */
export interface Result<D, M = Meta> {
  data: D;
  meta: M;
  quota: Quota | null;
  requestId: string | null;
}

export interface ClientOptions {
  /** The API key; defaults to the PMB_API_KEY environment variable. */
  apiKey?: string;
  /** The service's address; defaults to PMB_BASE_URL. */
  baseUrl?: string;
  /** Retries of a 429, 500 or 503 before the error is thrown (default 3). */
  maxRetries?: number;
  /**
   * Longest wait before one retry, in seconds (default 65, more than a full minute window: the
   * minute window's Retry-After is at most 61). A longer Retry-After (the day window) is thrown at once.
   */
  maxRetryWaitSeconds?: number;
  /** Per-request timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Called before each retry (for logging). */
  onRetry?: (info: { attempt: number; waitSeconds: number; error: PmbError }) => void;
}

export type Interval = "1h" | "1d";
type Time = Date | string;

const RETRYABLE = new Set([429, 500, 503]);
/** Covers a full minute window (Retry-After up to 61 s) with room for a slow clock. */
export const DEFAULT_MAX_RETRY_WAIT_SECONDS = 65;
const DAY_MS = 86_400_000;

function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.[name] || undefined;
}

function iso(time: Time): string {
  return typeof time === "string" ? time : time.toISOString();
}

function toDate(time: Time): Date {
  return typeof time === "string"
    ? new Date(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(time) || time.length === 10 ? time : `${time}Z`)
    : time;
}

function headerInt(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : null;
}

function quotaOf(headers: Headers): Quota | null {
  const v = [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-limit-day",
    "x-ratelimit-remaining-day",
    "x-ratelimit-reset-day",
  ].map((h) => headerInt(headers, h));
  if (v.some((x) => x === null)) return null;
  const [limitMinute, remainingMinute, resetMinute, limitDay, remainingDay, resetDay] = v as number[];
  return {
    limitMinute: limitMinute!,
    remainingMinute: remainingMinute!,
    resetMinute: new Date(resetMinute! * 1000),
    limitDay: limitDay!,
    remainingDay: remainingDay!,
    resetDay: new Date(resetDay! * 1000),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Client of the benchmark data API (/v1). Levels come back as Decimal, timestamps as Date (UTC),
 * failures as typed errors; 429, 500 and 503 are retried after Retry-After, up to a cap.
 */
export class PmbClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly maxRetryWaitSeconds: number;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly onRetry: ClientOptions["onRetry"];
  /** The quota reported by the last keyed response (null before the first call). */
  quota: Quota | null = null;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? env("PMB_API_KEY");
    if (!apiKey) throw new TypeError("no API key: pass { apiKey } or set PMB_API_KEY");
    const baseUrl = options.baseUrl ?? env("PMB_BASE_URL");
    if (!baseUrl) throw new TypeError("no base address: pass { baseUrl } or set PMB_BASE_URL");
    this.apiKey = apiKey;
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.onRetry = options.onRetry;
  }

  /** GET /v1: service index and the authoritative quota (counts as one request). */
  service(): Promise<Result<ServiceIndex>> {
    return this.get("/v1");
  }

  /** GET /v1/indices */
  indices(): Promise<Result<IndexCatalog>> {
    return this.get("/v1/indices");
  }

  /** GET /v1/indices/{ticker}/latest */
  indexLatest(ticker: string): Promise<Result<IndexLatest>> {
    return this.get(`/v1/indices/${encodeURIComponent(ticker)}/latest`);
  }

  /** GET /v1/indices/{ticker}/history: one request; the API clamps it to the trailing 90 days. */
  indexHistory(
    ticker: string,
    params: { start?: Time; end?: Time; interval?: Interval } = {},
  ): Promise<Result<IndexHistory, IndexHistoryMeta>> {
    return this.get(`/v1/indices/${encodeURIComponent(ticker)}/history`, {
      start: params.start === undefined ? undefined : iso(params.start),
      end: params.end === undefined ? undefined : iso(params.end),
      interval: params.interval,
    });
  }

  /** GET /v1/indices/{ticker}/reconstitutions: newest first, limit 1 to 50 (default 20). */
  reconstitutions(ticker: string, params: { limit?: number } = {}): Promise<Result<Reconstitutions>> {
    return this.get(`/v1/indices/${encodeURIComponent(ticker)}/reconstitutions`, { limit: params.limit?.toString() });
  }

  /** GET /v1/volatility */
  volatility(): Promise<Result<VolatilityCatalog>> {
    return this.get("/v1/volatility");
  }

  /** GET /v1/volatility/{ticker}/latest */
  volatilityLatest(ticker: string): Promise<Result<VolatilityLatest>> {
    return this.get(`/v1/volatility/${encodeURIComponent(ticker)}/latest`);
  }

  /** GET /v1/volatility/{ticker}/history: newest first, limit 1 to 5000 (default 500). */
  volatilityHistory(
    ticker: string,
    params: { start?: Time; limit?: number; includeGated?: boolean } = {},
  ): Promise<Result<VolatilityHistory, VolatilityHistoryMeta>> {
    return this.get(`/v1/volatility/${encodeURIComponent(ticker)}/history`, {
      start: params.start === undefined ? undefined : iso(params.start),
      limit: params.limit?.toString(),
      includeGated: params.includeGated === undefined ? undefined : String(params.includeGated),
    });
  }

  /** GET /v1/downloads: where the monthly snapshot bundles (full history) are. */
  downloads(): Promise<Result<DownloadsPointer>> {
    return this.get("/v1/downloads");
  }

  /**
   * Index levels over [start, end], walked window by window (windowDays each, default 30),
   * oldest first. Only the trailing 90 days are served: an older start is clamped by the API,
   * and `clamped` says so; full history is in the snapshot bundles (`downloads()`).
   */
  async *walkIndexHistory(
    ticker: string,
    params: { start: Time; end?: Time; interval?: Interval; windowDays?: number },
  ): AsyncGenerator<Result<IndexHistory, IndexHistoryMeta>> {
    const windowMs = (params.windowDays ?? 30) * DAY_MS;
    if (!(windowMs > 0)) throw new RangeError("windowDays must be positive");
    const end = params.end === undefined ? new Date() : toDate(params.end);
    let from = toDate(params.start);
    while (from < end) {
      const to = new Date(Math.min(from.getTime() + windowMs, end.getTime()));
      const page = await this.indexHistory(ticker, { start: from, end: to, interval: params.interval });
      yield page;
      // a clamped first window restarts the walk at the window the API actually served
      from = page.meta.clamped && page.meta.effectiveStart > to ? page.meta.effectiveStart : to;
    }
  }

  /** All of walkIndexHistory's points in one array, oldest first, without duplicates at window edges. */
  async indexHistoryRange(
    ticker: string,
    params: { start: Time; end?: Time; interval?: Interval; windowDays?: number },
  ): Promise<{
    ticker: string;
    interval: Interval;
    points: IndexLevelPoint[];
    clamped: boolean;
    effectiveStart: Date | null;
    requests: number;
  }> {
    const points: IndexLevelPoint[] = [];
    let clamped = false;
    let effectiveStart: Date | null = null;
    let requests = 0;
    let interval: Interval = params.interval ?? "1d";
    for await (const page of this.walkIndexHistory(ticker, params)) {
      requests += 1;
      interval = page.data.interval;
      clamped ||= page.meta.clamped;
      effectiveStart ??= page.meta.effectiveStart;
      for (const p of page.data.points) if (!points.length || p.t > points.at(-1)!.t) points.push(p);
    }
    return { ticker: ticker.toUpperCase(), interval, points, clamped, effectiveStart, requests };
  }

  /**
   * Volatility history from `start` (default: the trailing 90-day window) to `end` (default: now),
   * oldest first. The endpoint takes no end and returns at most 5000 points newest first, so
   * this asks for the maximum; `complete` is false when older points in the range were cut off.
   */
  async volatilityHistoryRange(
    ticker: string,
    params: { start?: Time; end?: Time; includeGated?: boolean } = {},
  ): Promise<{
    series: SeriesDefinition;
    points: VolatilityHistoryPoint[];
    clamped: boolean;
    effectiveStart: Date;
    complete: boolean;
  }> {
    const limit = 5000;
    const page = await this.volatilityHistory(ticker, {
      start: params.start,
      limit,
      includeGated: params.includeGated,
    });
    const end = params.end === undefined ? null : toDate(params.end);
    const points = page.data.points.filter((p) => end === null || p.t <= end).reverse();
    return {
      series: page.data.series,
      points,
      clamped: page.meta.clamped,
      effectiveStart: page.meta.effectiveStart,
      complete: page.data.count < limit,
    };
  }

  /** One GET with retries; returns the parsed body or throws the typed error. */
  async get<D, M = Meta>(path: string, query: Record<string, string | undefined> = {}): Promise<Result<D, M>> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    for (let attempt = 0; ; attempt += 1) {
      const res = await this.fetchImpl(url, {
        headers: { Authorization: `Bearer ${this.apiKey}`, Accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const requestId = res.headers.get("x-request-id");
      const quota = quotaOf(res.headers);
      if (quota) this.quota = quota;
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      if (res.ok && body !== null && typeof body === "object" && "data" in body) {
        const parsed = parseBody(body as { data: unknown; meta: unknown });
        return { data: parsed.data as D, meta: parsed.meta as M, quota, requestId };
      }
      const error = this.errorOf(res, body, requestId);
      const wait = this.retryWait(error, attempt);
      if (wait === null) throw error;
      this.onRetry?.({ attempt: attempt + 1, waitSeconds: wait, error });
      await sleep(wait * 1000);
    }
  }

  private errorOf(res: Response, body: unknown, requestId: string | null): PmbError {
    const e = (body as { error?: { code?: unknown; message?: unknown; docsUrl?: unknown; requestId?: unknown } } | null)
      ?.error;
    const retryAfter = headerInt(res.headers, "retry-after");
    return errorFor({
      code: typeof e?.code === "string" ? e.code : "error",
      status: res.status,
      message: typeof e?.message === "string" ? e.message : `HTTP ${res.status}`,
      docsUrl: typeof e?.docsUrl === "string" ? e.docsUrl : null,
      requestId: typeof e?.requestId === "string" ? e.requestId : requestId,
      retryAfter,
    });
  }

  /** Seconds to wait before retrying, or null to throw now. */
  private retryWait(error: PmbError, attempt: number): number | null {
    if (!RETRYABLE.has(error.status) || attempt >= this.maxRetries) return null;
    if (!(error instanceof RateLimitError || error instanceof ServerError || error.code === "error")) return null;
    // Retry-After is exact: wait that long; without one, back off exponentially
    const wait = error.retryAfter ?? Math.min(2 ** attempt, this.maxRetryWaitSeconds);
    return wait > this.maxRetryWaitSeconds ? null : wait;
  }
}
