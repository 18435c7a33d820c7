import { formatUtc } from "@/lib/site/time";

/** What the pages say while the start-up backfill computes the history they show. */
export function backfillMessage(p: { hoursDone: number; hoursTotal: number | null; through: string | null }): {
  pct: number | null;
  progress: string;
} {
  const pct = p.hoursTotal ? Math.min(100, Math.floor((100 * p.hoursDone) / p.hoursTotal)) : null;
  const done = p.hoursTotal
    ? `${p.hoursDone.toLocaleString("en-US")} of ${p.hoursTotal.toLocaleString("en-US")} hours computed (${pct}%)`
    : `${p.hoursDone.toLocaleString("en-US")} hours computed`;
  return { pct, progress: p.through ? `${done}, through ${formatUtc(p.through)}` : `${done}; no hour computed yet` };
}
