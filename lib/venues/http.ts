import { isAscii } from "node:buffer";
import type { z } from "zod";
import { hasErrorKind } from "@/lib/plumbing/error-kind";

/** One raw venue response, kept so any value can be recomputed from what the venue said. */
export interface RawResponse {
  venue: string;
  url: string;
  /** the body of a POST (e.g. the token ids of a CLOB `/books` read) */
  request?: string;
  status: number;
  at: string;
  ms: number;
  body: string;
}

export class VenueError extends Error {
  readonly kind = "VenueError" as const;
  constructor(
    readonly url: string,
    readonly reason: string,
    /** the HTTP status of the last answer, when there was one */
    readonly status: number | null = null,
  ) {
    super(`${url}: ${reason}`);
    this.name = "VenueError";
  }
}

/** A VenueError from any copy of this module (see hasErrorKind): never test it with `instanceof`. */
export const isVenueError = (value: unknown): value is VenueError => hasErrorKind(value, "VenueError");

export interface VenueHttpOptions {
  venue: string;
  timeoutMs: number;
  /** attempts per request, the first included */
  attempts?: number;
  /** first backoff; doubles per retry (a Retry-After header wins) */
  backoffMs?: number;
  /** longest wait this client accepts from a Retry-After */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
  /** keep every response in `raw` (default true); a reader that stores none of them (the price history) passes false */
  keepRaw?: boolean;
  /** told of each request's outcome (status 0: no answer) and its documented endpoint when named: the /metrics venue counters */
  observe?: (url: string, status: number, endpoint: string | undefined) => void;
  /** the backoff's wait (tests skip it); the rps spacing always waits on the real clock */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * A sign that a venue changed what the connectors rely on: an answer in another shape (`field`
 * names the JSON path that differs), a `deprecation` / `sunset` / `warning` header (`field`:
 * "headers"), or an endpoint gone (404 from a list, 410 from any: `field`: "status"). The collector
 * opens an incident per venue, endpoint and field (lib/incidents/drift.ts).
 */
export interface DriftFinding {
  venue: string;
  /** the endpoint as documented, e.g. "gamma GET /events/keyset" */
  endpoint: string;
  field: string;
  detail: string;
}

/** One request's options: the endpoint it reads (for drift findings), its cost in the venue's budget. */
export interface RequestOptions {
  /** the documented endpoint, e.g. "kalshi GET /markets/{ticker}"; the URL's path when unset */
  endpoint?: string;
  /** requests' worth of the venue's budget it takes (a Kalshi batch is billed per item); 1 when unset */
  cost?: number;
  /** a 404 means "no such item" (a market, a book), not an endpoint gone */
  notFoundIsAnswer?: boolean;
}

/** The headers a venue sends to announce an endpoint's end (Polymarket's legacy Gamma lists sent all three). */
export const DEPRECATION_HEADERS = ["deprecation", "sunset", "warning"] as const;

/** The deprecation headers of an answer, as `name: value` text; null when it has none. */
export function deprecationOf(headers: Headers): string | null {
  const found = DEPRECATION_HEADERS.flatMap((h) => (headers.get(h) !== null ? [`${h}: ${headers.get(h)}`] : []));
  return found.length ? found.join("; ") : null;
}

/** The first difference a zod error names, as a JSON path and a message. */
export function shapeDifference(error: z.ZodError): { field: string; detail: string } {
  const issue = error.issues[0];
  const field =
    issue && issue.path.length
      ? issue.path
          .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
          .join("")
          .replace(/^\./, "")
      : "(body)";
  return { field, detail: issue?.message ?? "unexpected shape" };
}

/** A client's limits: a budget shared with the venue's other clients, or its own (`concurrency`, `rps`). */
export type VenueLimits = { budget: VenueBudget } | { concurrency: number; rps?: number };

/**
 * A response body as text (UTF-8). The venues' JSON is ASCII, and ASCII bytes read as Latin-1 are
 * the same characters: that reading is several times faster than UTF-8's on this Node (a
 * back-calculation reads hundreds of megabytes of candlesticks); anything else is read as UTF-8.
 */
export function bodyText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * A venue's request budget: at most `concurrency` requests in flight and at most `rps` started per
 * second (starts spaced 1000/rps ms apart, retries included). Every client given the same budget
 * draws on it, so jobs running at once together stay within the venue's limits.
 */
export class VenueBudget {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** when the next request may start (ms since the epoch), for the rps budget */
  private nextStart = 0;

  constructor(
    readonly concurrency: number,
    /** none when unset */
    readonly rps?: number,
  ) {}

  /**
   * Runs `work` once a slot is free and its start is due; `cost` is the requests' worth of the rps
   * budget it takes (Kalshi bills a batch per item: its tokens are 10 a request, so KALSHI_RPS is
   * the token budget / 10, and a batch of n tickers costs n).
   */
  async slot<T>(work: () => Promise<T>, cost = 1): Promise<T> {
    if (this.active >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      await this.paced(cost);
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Waits for this request's turn under the rps budget: starts are 1000/rps ms apart. */
  private async paced(cost: number): Promise<void> {
    if (!this.rps) return;
    const now = Date.now();
    const at = Math.max(now, this.nextStart);
    this.nextStart = at + (cost * 1000) / this.rps;
    // a timer may fire a millisecond early: wait until the turn has come by the clock
    while (Date.now() < at) await defaultSleep(at - Date.now());
  }

  /**
   * Holds every start of this budget for `ms` (a 429: the venue's bucket is empty, and Kalshi's
   * 429 carries no Retry-After), so the jobs sharing it back off together, not only the one refused.
   */
  hold(ms: number): void {
    this.nextStart = Math.max(this.nextStart, Date.now() + ms);
  }
}

/**
 * A venue's public HTTP API within its rate limits (a budget of its own or one shared with other
 * clients), each request with a timeout, 429 and 5xx retried with exponential backoff or the
 * venue's Retry-After, every response kept in `raw` (unless `keepRaw` is false). `requests` and
 * `raw` are this client's: one job's.
 */
export class VenueHttp {
  readonly raw: RawResponse[] = [];
  /** what the venue changed, seen by this client's requests (see DriftFinding) */
  readonly drift: DriftFinding[] = [];
  /** the endpoints that answered 2xx in the expected shape, with no deprecation header */
  readonly healthy = new Set<string>();
  requests = 0;
  /**
   * Reads that failed: no answer (connection refused, timeout), a 5xx or 429 still there after the
   * retries, a refusal, or an answer in an unexpected shape. A 404 the caller takes as "no such item"
   * is an answer, not a failure. A job compares it before and after a step to know whether every
   * read the step needed was answered.
   */
  failed = 0;
  private readonly options: VenueHttpOptions;
  private readonly budget: VenueBudget;

  constructor(options: VenueHttpOptions & VenueLimits) {
    this.options = options;
    this.budget = "budget" in options ? options.budget : new VenueBudget(options.concurrency, options.rps);
  }

  /** GETs a JSON document; throws VenueError when the venue does not answer with one. */
  getJson(url: string, options: RequestOptions = {}): Promise<unknown> {
    return this.request(url, undefined, options);
  }

  /** POSTs a JSON body and reads a JSON answer (a read such as CLOB `/books`), as getJson. */
  postJson(url: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.request(url, JSON.stringify(body), options);
  }

  /** GETs (or POSTs `post`) and reads the answer through `schema`: a different shape is drift, and a VenueError. */
  async read<T>(url: string, schema: z.ZodType<T>, options: RequestOptions & { post?: unknown } = {}): Promise<T> {
    const body =
      options.post === undefined ? await this.getJson(url, options) : await this.postJson(url, options.post, options);
    return this.parse(body, schema, url, options.endpoint);
  }

  /** Reads a body through `schema`; a different shape is recorded as drift and thrown as a VenueError. */
  parse<T>(body: unknown, schema: z.ZodType<T>, url: string, endpoint?: string): T {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const { field, detail } = shapeDifference(parsed.error);
    const name = endpoint ?? this.endpointOf(url);
    this.noteDrift({ venue: this.options.venue, endpoint: name, field, detail: `unexpected shape: ${detail}` });
    this.healthy.delete(name);
    this.failed += 1;
    throw new VenueError(url, `unexpected shape at ${field} (${detail})`);
  }

  private endpointOf(url: string): string {
    try {
      return `${this.options.venue} ${new URL(url).pathname}`;
    } catch {
      return `${this.options.venue} ${url}`;
    }
  }

  private noteDrift(f: DriftFinding): void {
    if (!this.drift.some((d) => d.endpoint === f.endpoint && d.field === f.field)) this.drift.push(f);
  }

  /** Drift an answer shows by its status or headers; true when there was some. */
  private driftOfAnswer(endpoint: string, status: number, headers: Headers | null, options: RequestOptions): boolean {
    const venue = this.options.venue;
    const notices = headers ? deprecationOf(headers) : null;
    if (notices) this.noteDrift({ venue, endpoint, field: "headers", detail: notices });
    const gone = status === 410 || (status === 404 && !options.notFoundIsAnswer);
    if (gone)
      this.noteDrift({
        venue,
        endpoint,
        field: "status",
        detail: `HTTP ${status}${status === 410 ? " Gone" : " Not Found"}: the endpoint no longer answers`,
      });
    return notices !== null || gone;
  }

  private async request(url: string, body: string | undefined, options: RequestOptions): Promise<unknown> {
    const endpoint = options.endpoint ?? this.endpointOf(url);
    const attempts = this.options.attempts ?? 4;
    const sleep = this.options.sleep ?? defaultSleep;
    const doFetch = this.options.fetch ?? fetch;
    const init: RequestInit =
      body === undefined
        ? { headers: { accept: "application/json" } }
        : { method: "POST", body, headers: { accept: "application/json", "content-type": "application/json" } };
    const kept = body === undefined ? {} : { request: body };
    let last = "no answer";
    let lastStatus: number | null = null;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const outcome = await this.budget.slot(async () => {
        const started = Date.now();
        this.requests += 1;
        try {
          const res = await doFetch(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
          const text = bodyText(Buffer.from(await res.arrayBuffer()));
          this.options.observe?.(url, res.status, options.endpoint);
          if (this.options.keepRaw !== false)
            this.raw.push({
              venue: this.options.venue,
              url,
              ...kept,
              status: res.status,
              at: new Date(started).toISOString(),
              ms: Date.now() - started,
              body: text,
            });
          return {
            status: res.status,
            body: text,
            retryAfter: retryAfterMs(res.headers.get("retry-after")),
            headers: res.headers,
          };
        } catch (error) {
          this.options.observe?.(url, 0, options.endpoint);
          const reason =
            error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
              ? `timed out after ${this.options.timeoutMs} ms`
              : `unreachable (${(error as Error).message})`;
          if (this.options.keepRaw !== false)
            this.raw.push({
              venue: this.options.venue,
              url,
              ...kept,
              status: 0,
              at: new Date(started).toISOString(),
              ms: Date.now() - started,
              body: reason,
            });
          return { status: 0, body: reason, retryAfter: null, headers: null };
        }
      }, options.cost ?? 1);
      const drifted = outcome.status !== 0 && this.driftOfAnswer(endpoint, outcome.status, outcome.headers, options);
      if (outcome.status >= 200 && outcome.status < 300) {
        try {
          const parsed = JSON.parse(outcome.body) as unknown;
          if (!drifted) this.healthy.add(endpoint);
          return parsed;
        } catch {
          this.failed += 1;
          throw new VenueError(url, "malformed body (not JSON)", outcome.status);
        }
      }
      last = outcome.status === 0 ? outcome.body : `HTTP ${outcome.status}`;
      lastStatus = outcome.status === 0 ? null : outcome.status;
      const retryable = outcome.status === 0 || outcome.status === 429 || outcome.status >= 500;
      if (!retryable || attempt === attempts) break;
      const backoff = (this.options.backoffMs ?? 500) * 2 ** (attempt - 1);
      const wait = outcome.retryAfter ?? backoff;
      if (outcome.status === 429 && wait <= (this.options.maxRetryAfterMs ?? 60_000)) this.budget.hold(wait);
      if (wait > (this.options.maxRetryAfterMs ?? 60_000)) {
        last = `${last}, Retry-After ${Math.round(wait / 1000)} s is beyond this run`;
        break;
      }
      await sleep(wait);
    }
    if (!(lastStatus === 404 && options.notFoundIsAnswer)) this.failed += 1;
    throw new VenueError(url, last, lastStatus);
  }
}
