/**
 * Whether this process knows the database to be unavailable now: set by lib/db.ts when a query
 * or a connection fails as `unavailable` (lib/db/unavailable.ts), cleared when one succeeds. A
 * leaf without imports, kept on globalThis, so proxy.ts can answer pages with a 503 while it lasts
 * without loading the database client.
 */
export interface OutageRecord {
  /** When the outage began (ms since the epoch), or null while the database answers. */
  since: number | null;
  /** Failed operations seen since it began. */
  failures: number;
  /** When the outage was last written to the log. */
  lastLine: number;
}

export const outageRecord: OutageRecord = ((globalThis as { __pmbDbOutage?: OutageRecord }).__pmbDbOutage ??= { since: null, failures: 0, lastLine: 0 });

/** Pages that need no database: served during an outage too (proxy.ts, lib/server/page-outage.ts). */
export const PAGES_WITHOUT_DATABASE = /^\/(docs|license|terms)(\/|$)/;

/** True while the database is known to be unavailable. */
export function databaseDown(): boolean {
  return outageRecord.since !== null;
}
