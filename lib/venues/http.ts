import { isAscii } from "node:buffer";

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
  /** told of each request's outcome (status 0: no answer): the /metrics venue counters */
  observe?: (url: string, status: number) => void;
  /** the backoff's wait (tests skip it); the rps spacing always waits on the real clock */
  sleep?: (ms: number) => Promise<void>;
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

  /** Runs `work` once a slot is free and its start is due. */
  async slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      await this.paced();
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  /** Waits for this request's turn under the rps budget: starts are 1000/rps ms apart. */
  private async paced(): Promise<void> {
    if (!this.rps) return;
    const now = Date.now();
    const at = Math.max(now, this.nextStart);
    this.nextStart = at + 1000 / this.rps;
    // a timer may fire a millisecond early: wait until the turn has come by the clock
    while (Date.now() < at) await defaultSleep(at - Date.now());
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
  requests = 0;
  private readonly options: VenueHttpOptions;
  private readonly budget: VenueBudget;

  constructor(options: VenueHttpOptions & VenueLimits) {
    this.options = options;
    this.budget = "budget" in options ? options.budget : new VenueBudget(options.concurrency, options.rps);
  }

  /** GETs a JSON document; throws VenueError when the venue does not answer with one. */
  getJson(url: string): Promise<unknown> {
    return this.request(url);
  }

  /** POSTs a JSON body and reads a JSON answer (a read such as CLOB `/books`), as getJson. */
  postJson(url: string, body: unknown): Promise<unknown> {
    return this.request(url, JSON.stringify(body));
  }

  private async request(url: string, body?: string): Promise<unknown> {
    const attempts = this.options.attempts ?? 4;
    const sleep = this.options.sleep ?? defaultSleep;
    const doFetch = this.options.fetch ?? fetch;
    const init: RequestInit =
      body === undefined ? { headers: { accept: "application/json" } } : { method: "POST", body, headers: { accept: "application/json", "content-type": "application/json" } };
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
          this.options.observe?.(url, res.status);
          if (this.options.keepRaw !== false) this.raw.push({ venue: this.options.venue, url, ...kept, status: res.status, at: new Date(started).toISOString(), ms: Date.now() - started, body: text });
          return { status: res.status, body: text, retryAfter: retryAfterMs(res.headers.get("retry-after")) };
        } catch (error) {
          this.options.observe?.(url, 0);
          const reason = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError") ? `timed out after ${this.options.timeoutMs} ms` : `unreachable (${(error as Error).message})`;
          if (this.options.keepRaw !== false) this.raw.push({ venue: this.options.venue, url, ...kept, status: 0, at: new Date(started).toISOString(), ms: Date.now() - started, body: reason });
          return { status: 0, body: reason, retryAfter: null };
        }
      });
      if (outcome.status >= 200 && outcome.status < 300) {
        try {
          return JSON.parse(outcome.body) as unknown;
        } catch {
          throw new VenueError(url, "malformed body (not JSON)", outcome.status);
        }
      }
      last = outcome.status === 0 ? outcome.body : `HTTP ${outcome.status}`;
      lastStatus = outcome.status === 0 ? null : outcome.status;
      const retryable = outcome.status === 0 || outcome.status === 429 || outcome.status >= 500;
      if (!retryable || attempt === attempts) break;
      const backoff = (this.options.backoffMs ?? 500) * 2 ** (attempt - 1);
      const wait = outcome.retryAfter ?? backoff;
      if (wait > (this.options.maxRetryAfterMs ?? 60_000)) {
        last = `${last}, Retry-After ${Math.round(wait / 1000)} s is beyond this run`;
        break;
      }
      await sleep(wait);
    }
    throw new VenueError(url, last, lastStatus);
  }
}
