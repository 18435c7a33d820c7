import "server-only";
import { REQUEST_LOG_SIZE } from "@/lib/keys/usage-meter";
import type { Db } from "@/lib/db";

/** One request of a key's log, as the portal shows it. */
export interface RequestLogRow {
  at: string;
  requestId: string;
  method: string;
  endpoint: string;
  path: string;
  status: number;
  errorCode: string | null;
}

export interface RequestLog {
  rows: RequestLogRow[];
  /** The request id searched for (trimmed), or null when the whole log is shown. */
  query: string | null;
  /** How many requests the page shows. */
  size: number;
  /** How many days the log keeps a request (REQUEST_LOG_DAYS). */
  days: number;
}

/** A search term: what was typed, trimmed and cut to a sane length, or null when empty. */
export function requestIdQuery(raw: string | string[] | undefined): string | null {
  const text = (Array.isArray(raw) ? raw[0] : raw)?.trim().slice(0, 100) ?? "";
  return text ? text : null;
}

/**
 * The last requests of one key of one account, newest first, as metering wrote them
 * (lib/api/metering.ts): the owner is part of the query, so another account's key id yields
 * nothing. `query` keeps the requests whose id contains it (case-insensitive): a full id from a
 * log line, or its first characters.
 */
export async function keyRequests(
  prisma: Db,
  days: number,
  keyId: string,
  userId: string,
  query: string | null = null,
): Promise<RequestLog> {
  const rows = await prisma.requestLogEntry.findMany({
    where: {
      keyId,
      key: { userId },
      ...(query ? { requestId: { contains: query, mode: "insensitive" as const } } : {}),
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: REQUEST_LOG_SIZE,
    select: { at: true, requestId: true, method: true, endpoint: true, path: true, status: true, errorCode: true },
  });
  return {
    rows: rows.map((r) => ({ ...r, at: r.at.toISOString() })),
    query,
    size: REQUEST_LOG_SIZE,
    days,
  };
}
