import pg from "pg";

// PostgreSQL's `name` type (OID 19) appears in catalog queries of Prisma's schema engine,
// which cannot deserialize it (prisma/orm#27403). It is text in every respect that matters,
// so results report it as `text` (OID 25). Nothing in our own schema uses `name`.
const NAME_OID = 19;
const TEXT_OID = 25;

type Fielded = { fields?: Array<{ dataTypeID: number }> };

function nameAsText<T>(result: T): T {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const field of (r as Fielded | undefined)?.fields ?? []) {
      if (field.dataTypeID === NAME_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

/** What a bounded pool does around each query (lib/db.ts gives it the settings and the outage log). */
export interface QueryBounds {
  /** The query timeout for a query issued now, in ms, when it differs from the pool's `query_timeout` (a background job's); else null. */
  override(): number | null;
  /** A query answered (the database is serving). */
  answered(): void;
  /** A query or an acquisition failed. */
  failed(error: unknown): void;
  /** Each query's round trip in seconds and whether it answered (the /metrics histogram). */
  timed?(seconds: number, ok: boolean): void;
}

type Callback = (error: Error | undefined, ...rest: unknown[]) => void;
type Queryable = { query: (...args: unknown[]) => unknown };

const patched = new WeakSet<object>();

/** Calls `after` with the outcome of a call made callback- or promise-style; returns the call's own result. */
function observe(
  args: unknown[],
  call: (args: unknown[]) => unknown,
  after: (error: Error | undefined, value?: unknown) => unknown,
): unknown {
  const last = args.length - 1;
  if (typeof args[last] === "function") {
    const cb = args[last] as Callback;
    const copy = [...args];
    copy[last] = (error: Error | undefined, value: unknown, ...rest: unknown[]) => {
      after(error, value);
      cb(error, value, ...rest);
    };
    return call(copy);
  }
  const out = call(args);
  if (out instanceof Promise) {
    return out.then(
      (value: unknown) => after(undefined, value) ?? value,
      (error: Error) => {
        after(error);
        throw error;
      },
    );
  }
  return out;
}

/** Cuts a connection: its client errors, and the pool discards it (an idle one at once, a checked-out one on release). */
function cut(client: pg.Client): void {
  client.connection?.stream?.destroy();
}

function patchQuery(
  target: Queryable,
  bounds: QueryBounds | null,
  client: pg.Client | null,
  timedOut: () => void,
): void {
  if (patched.has(target)) return;
  patched.add(target);
  const original = target.query.bind(target) as (...args: unknown[]) => unknown;
  target.query = (...args: unknown[]) => {
    const timeout = client && bounds ? bounds.override() : null;
    if (timeout !== null) {
      const [first] = args;
      if (typeof first === "string") args[0] = { text: first, query_timeout: timeout };
      else if (first && typeof first === "object" && typeof (first as { submit?: unknown }).submit !== "function")
        args[0] = { ...first, query_timeout: timeout };
    }
    const started = performance.now();
    return observe(
      args,
      (a) => original(...a),
      (error, value) => {
        bounds?.timed?.((performance.now() - started) / 1000, !error);
        if (!error) {
          bounds?.answered();
          return value === undefined ? undefined : nameAsText(value);
        }
        // A query that timed out may still be running on its connection, which then answers
        // nothing else: the connection is cut, so the pool discards it instead of reusing it.
        if (client && error.message === "Query read timeout") {
          cut(client);
          timedOut();
        }
        bounds?.failed(error);
        return undefined;
      },
    );
  };
}

/**
 * A pg.Pool whose results never carry the `name` type, for Prisma's migration engine; with
 * `bounds`, each query and acquisition also reports its outcome, a background job's query gets
 * its own timeout, and a connection whose query timed out is discarded.
 */
export class NameAsTextPool extends pg.Pool {
  constructor(config?: pg.PoolConfig, bounds: QueryBounds | null = null) {
    super(config);
    // Idle connections, so that a query that timed out (a database that stopped answering: its
    // other connections are as silent) has them all cut, and none is handed to a later request
    // that would wait the whole bound on it once the database is back.
    const idle = new Set<pg.Client>();
    const timedOut = () => {
      for (const client of idle) cut(client);
      idle.clear();
    };
    this.on("acquire", (client) => idle.delete(client));
    this.on("release", (_error, client) => idle.add(client));
    this.on("remove", (client) => idle.delete(client));
    patchQuery(this as unknown as Queryable, bounds, null, timedOut);
    this.on("connect", (client) => {
      // A connection cut while checked out reports through its query; without a listener its
      // `error` event would end the process.
      client.on("error", () => undefined);
      patchQuery(client as unknown as Queryable, bounds, client, timedOut);
    });
    if (bounds) {
      const connect = this.connect.bind(this) as (...args: unknown[]) => unknown;
      (this as { connect: unknown }).connect = (...args: unknown[]) =>
        observe(
          args,
          (a) => connect(...a),
          (error) => {
            if (error) bounds.failed(error);
            return undefined;
          },
        );
    }
  }
}
