/**
 * The rule that tells "this dependency cannot serve now" (answer 503 `unavailable` with
 * Retry-After, log once per outage) from a fault of ours (500 `internal_error`, logged with its
 * stack). It walks an error, its `cause` chain and the driver error Prisma keeps in `meta`.
 */

export type Unavailable = "database" | "redis";

/**
 * SQLSTATE codes of a database that cannot serve now: connection exceptions (class 08), operator
 * intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P05 idle
 * session timeout), too many connections (53300), a read-only database or standby refusing a
 * write (25006), and a database or login that is not there (3D000, 28000, 28P01: a
 * misconfiguration an operator fixes without a release, not a request's fault).
 */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "57P05", "53300", "25006", "3D000", "28000", "28P01"]);

/** Prisma's own codes for a database it cannot reach, that timed out, or whose pool or transaction could not start in time. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);

/** Node socket errors. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "EAI_AGAIN",
]);

/** Driver adapter error kinds (Prisma's convertDriverError) of a database that cannot serve. */
const ADAPTER_KINDS =
  /^(DatabaseNotReachable|SocketTimeout|ConnectionClosed|TooManyConnections|DatabaseDoesNotExist|DatabaseAccessDenied|AuthenticationFailed)$/;

/**
 * Messages of the pg driver and pool, PGlite and Prisma that carry no code: a bounded query or
 * acquisition that ran out (DB_QUERY_TIMEOUT_MS), a connection cut, a closed embedded database.
 */
const DATABASE_MESSAGES =
  /Query read timeout|timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error and is not queryable|Can't reach database|DatabaseNotReachable|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|is not currently accepting connections|terminating connection due to administrator command|database "[^"]*" does not exist|PGlite is closed|Transaction API error: Unable to start a transaction in the given time/i;

const REDIS_MESSAGES =
  /MaxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Command timed out|Reached the max retries per request|Connection is closed/i;

interface Walked {
  code?: unknown;
  message?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * A client that went away mid-request: Node's IncomingMessage fails its body stream with
 * `Error: aborted` (code ECONNRESET), and a web body stream read from it fails the same way. The
 * socket is the client's, not a dependency's: a dropped request is no outage.
 */
export function isClientAbort(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; name?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (e.name === "AbortError" || e.code === "ABORT_ERR" || e.code === "ERR_STREAM_PREMATURE_CLOSE") return true;
  return e.code === "ECONNRESET" && e.message === "aborted";
}

/** Which dependency `error` says cannot serve now, or null for any other failure. */
export function unavailableDependency(error: unknown): Unavailable | null {
  if (isClientAbort(error)) return null;
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 12; seen++) {
    const e = queue.shift() as Walked | null | undefined;
    if (!e || typeof e !== "object" || isClientAbort(e)) continue;
    const code = typeof e.code === "string" ? e.code : typeof e.originalCode === "string" ? e.originalCode : "";
    if (code === "REDIS_UNAVAILABLE") return "redis";
    const message = typeof e.message === "string" ? e.message : "";
    if (SQLSTATES.has(code) || code.startsWith("08") || PRISMA_CODES.has(code) || SOCKET_CODES.has(code))
      return "database";
    // 55000 (object not in prerequisite state) is "cannot connect now" only for a database closed
    // to connections (ALTER DATABASE ... ALLOW_CONNECTIONS false); elsewhere it is a bug of ours.
    if (code === "55000" && /not currently accepting connections/i.test(message)) return "database";
    if (typeof e.kind === "string" && ADAPTER_KINDS.test(e.kind)) return "database";
    if (REDIS_MESSAGES.test(message)) return "redis";
    if (DATABASE_MESSAGES.test(message) || /ECONNREFUSED|ECONNRESET|connect ETIMEDOUT/.test(message)) return "database";
    queue.push(e.cause, e.meta?.driverAdapterError);
  }
  return null;
}

/** True when an error means the database or Redis cannot serve now, not a bug. */
export function isUnavailableError(error: unknown): boolean {
  return unavailableDependency(error) !== null;
}
