/**
 * Whether a database is known to be unavailable now: set by lib/db.ts when a query or a
 * connection fails as `unavailable` (lib/db/unavailable.ts), cleared when one succeeds. Each
 * database (lib/db.ts `createDatabase`, built by the root) has one; proxy.ts reads the root's
 * through lib/root-slot.ts. A leaf without imports, so the proxy bundle stays small.
 */
export interface OutageRecord {
  /** When the outage began (ms since the epoch), or null while the database answers. */
  since: number | null;
  /** Failed operations seen since it began. */
  failures: number;
  /** When the outage was last written to the log. */
  lastLine: number;
}

/** Pages that need no database: served during an outage too (proxy.ts, lib/server/page-outage.ts). */
export const PAGES_WITHOUT_DATABASE = /^\/(docs|license|terms)(\/|$)/;
