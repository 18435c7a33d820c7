import { z } from "zod";
import { publicStatus } from "./shapes";

// The shapes of the status and changelog read models (the /status and /changelog pages,
// /status.json, the atom feeds): their types are inferred from these, so a field is declared once.

const when = z.string().describe("ISO 8601 UTC");

export const freshness = z.enum(["fresh", "late", "stale", "final"]);

export const indexFreshness = z.object({
  ticker: z.string(),
  name: z.string(),
  publicStatus,
  lastLevelAt: when.nullable(),
  ageSeconds: z.number().nullable(),
  stale: z.boolean(),
  staleMarkets: z.number().int(),
  totalMarkets: z.number().int(),
  freshness,
});

export const seriesFreshness = z.object({
  ticker: z.string(),
  slug: z.string(),
  name: z.string(),
  lastComputedAt: when.nullable(),
  lastPublishedAt: when.nullable(),
  status: z.string().nullable(),
  publicationState: z.string().nullable(),
  ageSeconds: z.number().nullable(),
  freshness,
});

/** A market whose newest quote is older than its limit at the last computed hour. */
export const staleQuote = z.object({
  conditionId: z.string(),
  label: z.string(),
  venue: z.string(),
  lastSnapshotAt: when.nullable(),
  limitSeconds: z.number(),
});

/** An open constituent of an active index, against the index's staleness limit. */
export const staleMarket = staleQuote.extend({ indexTicker: z.string() });

/** A leg of a listed volatility series, against the series' `snapshotMaxAgeSeconds` gate. */
export const staleLeg = staleQuote.extend({ seriesTicker: z.string() });

export const venueStatus = z.object({
  venue: z.string(),
  label: z.string(),
  /** the last collector run that read at least one book (the demo feed: its newest quote) */
  lastOkAt: when.nullable(),
  lastRunAt: when.nullable(),
  /** markets on this venue stale now (staleMarkets and staleLegs), each counted once */
  staleMarkets: z.number().int(),
  failing: z.boolean(),
  lastError: z.string().nullable(),
  lastErrorAt: when.nullable(),
});

export const incidentView = z.object({
  /** `INC-` and the first 8 hex digits of the id; null for a condition detected now and not yet recorded */
  ref: z.string().nullable(),
  source: z.enum(["auto", "operator", "detected"]),
  severity: z.enum(["major", "minor"]),
  subject: z.string(),
  title: z.string(),
  openedAt: when.nullable(),
  resolvedAt: when.nullable(),
  notes: z.array(z.object({ at: when, body: z.string() })),
});

/** A remark on a newest value (withheld, flagged, stale constituents): shown, not an incident. */
export const notice = z.object({ subject: z.string(), title: z.string(), detail: z.string(), since: when.nullable() });

export const statusView = z.object({
  generatedAt: when,
  lastComputedHour: when.nullable(),
  engineAgeSeconds: z.number().nullable(),
  tickSeconds: z.number(),
  indices: z.array(indexFreshness),
  series: z.array(seriesFreshness),
  venues: z.array(venueStatus),
  staleMarkets: z.array(staleMarket),
  /** legs of listed volatility series with no fresh quote at the last computed hour */
  staleLegs: z.array(staleLeg),
  /** open incidents, newest first, then conditions detected now that no incident records yet */
  incidents: z.array(incidentView),
  /** incidents resolved in the last 30 days, newest first (at most 10) */
  resolved: z.array(incidentView),
  notices: z.array(notice),
});

export const changeKind = z.enum(["methodology", "catalog", "restatement"]);

export const changeEntry = z.object({
  at: when,
  kind: changeKind,
  subject: z.string(),
  title: z.string(),
  detail: z.string(),
  href: z.string().nullable(),
});

export const changelogView = z.object({
  entries: z.array(changeEntry),
  counts: z.record(changeKind, z.number().int()),
});
