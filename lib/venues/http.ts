/** One raw venue response, kept so any value can be recomputed from what the venue said. */
export interface RawResponse {
  venue: string;
  url: string;
  status: number;
  at: string;
  ms: number;
  body: string;
}

export class VenueError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
    this.name = "VenueError";
  }
}

export interface VenueHttpOptions {
  venue: string;
  concurrency: number;
  timeoutMs: number;
  /** attempts per request, the first included */
  attempts?: number;
  /** first backoff; doubles per retry (a Retry-After header wins) */
  backoffMs?: number;
  /** longest wait this client accepts from a Retry-After */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
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
 * A venue's public HTTP API within its rate limits: at most `concurrency` requests in flight, each
 * with a timeout, 429 and 5xx retried with exponential backoff or the venue's Retry-After, every
 * response kept in `raw`.
 */
export class VenueHttp {
  readonly raw: RawResponse[] = [];
  requests = 0;
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: VenueHttpOptions) {}

  private async slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.options.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  /** GETs a JSON document; throws VenueError when the venue does not answer with one. */
  async getJson(url: string): Promise<unknown> {
    const attempts = this.options.attempts ?? 4;
    const sleep = this.options.sleep ?? defaultSleep;
    const doFetch = this.options.fetch ?? fetch;
    let last = "no answer";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const outcome = await this.slot(async () => {
        const started = Date.now();
        this.requests += 1;
        try {
          const res = await doFetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(this.options.timeoutMs) });
          const body = await res.text();
          this.raw.push({ venue: this.options.venue, url, status: res.status, at: new Date(started).toISOString(), ms: Date.now() - started, body });
          return { status: res.status, body, retryAfter: retryAfterMs(res.headers.get("retry-after")) };
        } catch (error) {
          const reason = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError") ? `timed out after ${this.options.timeoutMs} ms` : `unreachable (${(error as Error).message})`;
          this.raw.push({ venue: this.options.venue, url, status: 0, at: new Date(started).toISOString(), ms: Date.now() - started, body: reason });
          return { status: 0, body: reason, retryAfter: null };
        }
      });
      if (outcome.status >= 200 && outcome.status < 300) {
        try {
          return JSON.parse(outcome.body) as unknown;
        } catch {
          throw new VenueError(url, "malformed body (not JSON)");
        }
      }
      last = outcome.status === 0 ? outcome.body : `HTTP ${outcome.status}`;
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
    throw new VenueError(url, last);
  }
}
