/**
 * How often a held market that closed on the venue without a resolution yet is looked up again.
 * Most settle within hours of closing (Kalshi within minutes to hours; Polymarket once its UMA
 * proposal survives the two-hour challenge window), a disputed one within days, a few take
 * weeks. So: every hour for the first 6 hours after it was first seen closed, every 6 hours until
 * 4 days, then once a day, never stopping, so a late settlement is still recorded (a missed
 * resolution leaves an index carrying a dead price for good).
 */
export const CLOSED_HOURLY_FOR = 6;
export const CLOSED_SIX_HOURLY_UNTIL = 4 * 24;

/** Whether a held market first seen closed (unresolved) at `closedAt` is due a lookup at `hour`; one never seen closed always is. */
export function closedLookupDue(closedAt: Date | null, hour: Date): boolean {
  if (closedAt === null) return true;
  const age = Math.floor((hour.getTime() - closedAt.getTime()) / 3_600_000);
  if (age <= CLOSED_HOURLY_FOR) return true;
  return age <= CLOSED_SIX_HOURLY_UNTIL ? age % 6 === 0 : age % 24 === 0;
}
