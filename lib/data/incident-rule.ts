// When the service opens and closes an incident by itself. Pure: the facts in, the changes out.

export type Severity = "major" | "minor";

/** A condition that holds now and deserves an incident; `key` is stable while it lasts. */
export interface Condition {
  key: string;
  severity: Severity;
  subject: string;
  title: string;
  detail: string;
}

/** What the rule needs to know of the data, as of one moment. */
export interface Facts {
  /** the engine's last computed hour is overdue (or there is none) */
  engineBehind: { lastComputedHour: string | null; tickMinutes: number } | null;
  venues: ReadonlyArray<{ venue: string; failing: boolean; lastOkAt: string | null; lastError: string | null }>;
  indices: ReadonlyArray<{ ticker: string; freshness: string; lastLevelAt: string | null }>;
  series: ReadonlyArray<{ ticker: string; freshness: string; lastComputedAt: string | null }>;
  /** the start-up backfill is still computing the history (lib/server/backfill.ts) */
  backfilling?: boolean;
  /** changes of a venue's API the connectors rely on, active now (lib/incidents/drift.ts) */
  drift?: ReadonlyArray<{ venue: string; endpoint: string; field: string; detail: string; since: string }>;
}

/** A venue failed for a whole collector run: something went wrong and not one book or resolution was read. */
export function venueRunFailed(run: { snapshots: number; resolved: number; problems: readonly string[] }): boolean {
  return run.problems.length > 0 && run.snapshots === 0 && run.resolved === 0;
}

/**
 * The conditions that hold: a venue failing its whole run, the engine behind, an active index or
 * series gone stale. Something never computed yet (a fresh install, a new catalog before its
 * first read) has not gone stale: /status shows it as "none yet", not as an incident; nor has
 * data a backfill in progress is still computing (the pages show its progress instead): while it
 * runs only a failing venue is a condition.
 */
export function conditionsOf(facts: Facts): Condition[] {
  const out: Condition[] = [];
  const computing = facts.backfilling === true;
  if (facts.engineBehind?.lastComputedHour && !computing) {
    const { lastComputedHour, tickMinutes } = facts.engineBehind;
    out.push({
      key: "engine",
      severity: "major",
      subject: "Engine",
      title: "Computation is behind",
      detail: `The last computed hour is ${lastComputedHour}; a new hour is due every ${tickMinutes} minutes.`,
    });
  }
  for (const v of facts.venues) {
    if (!v.failing) continue;
    out.push({
      key: `venue:${v.venue}`,
      severity: "major",
      subject: v.venue,
      title: "Venue reads failing",
      detail: `The last collector run read nothing from ${v.venue}${v.lastError ? ` (${v.lastError})` : ""}; last successful read ${v.lastOkAt ?? "never"}.`,
    });
  }
  for (const d of facts.drift ?? []) {
    out.push({
      key: `drift:${d.venue}|${d.endpoint}|${d.field}`,
      severity: "major",
      subject: d.venue,
      title: `Venue API changed: ${d.endpoint}`,
      detail: `${d.endpoint}, ${d.field === "headers" ? "its headers" : d.field === "status" ? "its status" : `field ${d.field}`}: ${d.detail} (seen since ${d.since}). The connectors rely on it: the markets it feeds may go stale until they follow the change.`,
    });
  }
  for (const i of facts.indices) {
    if (i.freshness !== "stale" || !i.lastLevelAt || computing) continue;
    out.push({
      key: `index:${i.ticker}`,
      severity: "major",
      subject: i.ticker,
      title: "Index level stale",
      detail: `No level since ${i.lastLevelAt}.`,
    });
  }
  for (const s of facts.series) {
    if (s.freshness !== "stale" || !s.lastComputedAt || computing) continue;
    out.push({
      key: `series:${s.ticker}`,
      severity: "major",
      subject: s.ticker,
      title: "Volatility series stale",
      detail: `No computation since ${s.lastComputedAt}.`,
    });
  }
  return out;
}

/**
 * The changes that make the recorded incidents match the conditions: one incident per holding
 * condition that has none open, and every open automatic incident whose condition ended closed.
 * Incidents opened by an operator are theirs to close.
 */
export function reconcile(
  open: ReadonlyArray<{ id: string; key: string | null }>,
  conditions: readonly Condition[],
): { open: Condition[]; close: string[] } {
  const holding = new Set(conditions.map((c) => c.key));
  const recorded = new Set(open.flatMap((o) => (o.key ? [o.key] : [])));
  const seen = new Set<string>();
  const toOpen = conditions.filter((c) => !recorded.has(c.key) && !seen.has(c.key) && seen.add(c.key));
  const close = open.filter((o) => o.key !== null && !holding.has(o.key)).map((o) => o.id);
  return { open: toOpen, close };
}
