import { stringify } from "csv-stringify/sync";
import { iso6 } from "@/lib/time-format";
import type { Db } from "@/lib/db";

/** One file of a month's bundle, as written. */
export type MonthFile = { name: string; content: Buffer; rows: number };

export type Cell = string | number | boolean | null;

/** Booleans are written `true` / `false`, null as an empty cell, numbers in JavaScript's shortest round-trip form. */
export function csv(header: readonly string[], rows: Cell[][]): { content: Buffer; rows: number } {
  const cell = (v: Cell) =>
    v === null ? "" : typeof v === "boolean" ? (v ? "true" : "false") : typeof v === "number" ? String(v) : v;
  const text = stringify([header, ...rows.map((r) => r.map(cell))], { record_delimiter: "\r\n" });
  return { content: Buffer.from(text, "utf8"), rows: rows.length };
}

export const isoOrNull = (s: string | null) => (s === null ? null : iso6(new Date(s)));

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
/** JSON text for a CSV cell, every timestamp in it written like the bundle's own (microseconds and Z). */
export function jsonCell(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "string" && ISO_MS.test(v) ? iso6(new Date(v)) : v));
}

/** Markets back-calculated from history coarser than hourly (a resolved Polymarket market: 12-hour points), with its minutes. */
export async function coarseMarkets(prisma: Db): Promise<Map<string, number>> {
  const rows = await prisma.market.findMany({
    where: { historyFidelityMinutes: { not: null } },
    select: { conditionId: true, historyFidelityMinutes: true },
  });
  return new Map(rows.map((m) => [m.conditionId, m.historyFidelityMinutes!]));
}

/**
 * `history_fidelity_minutes` of an hour: empty when every price it used was hourly (or a book
 * read); otherwise the coarsest fidelity among its markets' history (720: a resolved Polymarket
 * market's 12-hour point carried to the hour, content/docs/methodology/recomputing.mdx). An index
 * level counts the constituents of its basket; a volatility computation its legs quoted from the
 * history (`historyFidelityOfLeg`).
 */
export function historyFidelity(
  basis: string,
  conditionIds: readonly string[],
  coarse: ReadonlyMap<string, number>,
): number | null {
  if (basis === "live" || coarse.size === 0) return null;
  const most = Math.max(0, ...conditionIds.map((id) => coarse.get(id) ?? 0));
  return most > 0 ? most : null;
}

/**
 * `history_fidelity_minutes` of one volatility leg: its market's fidelity when its quote is a point of
 * that history (not its settlement once resolved), else empty.
 */
export function historyFidelityOfLeg(
  basis: string,
  leg: { conditionId: string; source?: string; resolved: boolean },
  coarse: ReadonlyMap<string, number>,
): number | null {
  return leg.source === "history" && !leg.resolved ? historyFidelity(basis, [leg.conditionId], coarse) : null;
}
