import { describe, expect, test } from "vitest";
import { unavailableDependency } from "@/lib/db/unavailable";

/** A pg DatabaseError as the driver raises it. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "FATAL" });
/** Prisma's driver-adapter wrapping of a PostgreSQL error (as observed with @prisma/adapter-pg). */
const adapterError = (code: string, message: string) =>
  Object.assign(new Error(message), { name: "DriverAdapterError", cause: { kind: "postgres", code, message } });
/** A raw query's failure: Prisma's P2010 with the driver error in `meta`. */
const rawQueryError = (originalCode: string, originalMessage: string) =>
  Object.assign(new Error(`Raw query failed. Code: \`${originalCode}\`. Message: \`${originalMessage}\``), {
    code: "P2010",
    meta: {
      driverAdapterError: { name: "DriverAdapterError", cause: { originalCode, originalMessage, kind: "postgres" } },
    },
  });

describe("unavailableDependency: what cannot serve now, and what is a fault of ours", () => {
  test.each([
    [
      "55000 database closed to connections",
      adapterError("55000", 'database "x" is not currently accepting connections'),
      "database",
    ],
    ["57P01 admin shutdown", adapterError("57P01", "terminating connection due to administrator command"), "database"],
    [
      "57P02 crash shutdown",
      pgError("57P02", "terminating connection because of crash of another server process"),
      "database",
    ],
    ["57P03 cannot connect now", pgError("57P03", "the database system is starting up"), "database"],
    [
      "53300 too many connections",
      {
        name: "DriverAdapterError",
        message: "too many",
        cause: { kind: "TooManyConnections", cause: "sorry, too many clients already" },
      },
      "database",
    ],
    [
      "25006 read-only (write on a read-only database or standby)",
      adapterError("25006", "cannot execute INSERT in a read-only transaction"),
      "database",
    ],
    ["25006 in a raw query", rawQueryError("25006", "cannot execute UPDATE in a read-only transaction"), "database"],
    ["08006 connection failure", pgError("08006", "connection failure"), "database"],
    ["08P01 protocol violation", pgError("08P01", "protocol violation"), "database"],
    ["3D000 database does not exist", pgError("3D000", 'database "gone" does not exist'), "database"],
    [
      "the database's socket reset (read ECONNRESET)",
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" }),
      "database",
    ],
    [
      "ECONNREFUSED",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      "database",
    ],
    [
      "adapter DatabaseNotReachable",
      { name: "DriverAdapterError", message: "x", cause: { kind: "DatabaseNotReachable", host: "h", port: 5432 } },
      "database",
    ],
    ["query bound ran out (DB_QUERY_TIMEOUT_MS)", new Error("Query read timeout"), "database"],
    ["pool acquisition bound ran out", new Error("timeout exceeded when trying to connect"), "database"],
    ["connect bound ran out", new Error("Connection terminated due to connection timeout"), "database"],
    ["connection cut", new Error("Connection terminated unexpectedly"), "database"],
    ["P1001 can't reach", Object.assign(new Error("Can't reach database server"), { code: "P1001" }), "database"],
    [
      "P2024 pool timeout",
      Object.assign(new Error("Timed out fetching a new connection"), { code: "P2024" }),
      "database",
    ],
    [
      "P2028 transaction could not start in time",
      Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), {
        code: "P2028",
      }),
      "database",
    ],
    ["PGlite closed", new Error("PGlite is closed"), "database"],
    [
      "PGlite shutting down (57P01 in its message shape)",
      pgError("57P01", "terminating connection due to administrator command"),
      "database",
    ],
    [
      "wrapped in a cause",
      new Error("outer", {
        cause: new Error("inner", { cause: adapterError("57P03", "the database system is shutting down") }),
      }),
      "database",
    ],
    ["Redis not connected", Object.assign(new Error("Redis is not connected"), { code: "REDIS_UNAVAILABLE" }), "redis"],
    ["Redis command timed out", new Error("Command timed out"), "redis"],
    ["Redis offline queue off", new Error("Stream isn't writeable and enableOfflineQueue options is false"), "redis"],
  ])("%s: %s", (_label, error, expected) => {
    expect(unavailableDependency(error)).toBe(expected);
  });

  test.each([
    [
      "55000 of a bug (sequence not yet defined)",
      adapterError("55000", 'currval of sequence "s" is not yet defined in this session'),
    ],
    ["23505 unique violation", adapterError("23505", "duplicate key value violates unique constraint")],
    ["42P01 missing table in a raw query", rawQueryError("42P01", 'relation "User" does not exist')],
    ["40001 serialization failure", adapterError("40001", "could not serialize access")],
    ["a TypeError of ours", new TypeError("Cannot read properties of undefined (reading 'x')")],
    ["a string", "boom"],
    [
      "a client that dropped its request (IncomingMessage 'aborted', ECONNRESET)",
      Object.assign(new Error("aborted"), { code: "ECONNRESET" }),
    ],
    [
      "a client abort wrapped by a body reader",
      new TypeError("terminated", { cause: Object.assign(new Error("aborted"), { code: "ECONNRESET" }) }),
    ],
    [
      "a web stream aborted by its client",
      Object.assign(new Error("This operation was aborted"), { name: "AbortError", code: 20 }),
    ],
    ["null", null],
  ])("%s: a fault of ours", (_label, error) => {
    expect(unavailableDependency(error)).toBeNull();
  });

  test("a cycle in the cause chain ends", () => {
    const a: { message: string; cause?: unknown } = { message: "a" };
    a.cause = a;
    expect(unavailableDependency(a)).toBeNull();
  });
});
