import Decimal from "decimal.js";
import { dec, fullPrecision } from "@/lib/engine/decimal";
import { MS_PER_DAY, MS_PER_HOUR } from "@/lib/engine/time-format";
import type { Snapshot } from "@/lib/engine/types";
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { HistoryPoint } from "@/lib/venues/price-history";
import type { HeldHistory } from "@/lib/ingest/history-held";

type Reader = Db | Prisma.TransactionClient;

/**
 * The venues' hourly price history as the back-calculation stores it: one market_history_prices
 * row per market per UTC day, its hours and prices as parallel arrays. An hour that has a
 * market_snapshots row (a book read, an ingested correction, a history snapshot stored before
 * this table) is the snapshot's: such hours are not stored here, and readers let the snapshot win.
 */

const dayOf = (ms: number) => Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
const DAY_ROWS_PER_INSERT = 5_000;

/** One stored history price, decimals as the database prints them. */
export interface HistoryPrice {
  conditionId: string;
  observedAt: Date;
  bestBid: string;
  bestAsk: string;
  mid: string;
}

/** Parses a PostgreSQL array literal of numbers or decimals ({0.1,0.2}). */
const cells = (text: string): string[] => (text.length > 2 ? text.slice(1, -1).split(",") : []);

/** What storing a history did: prices added, stored prices the venue has since changed (replaced), and the first hour replaced. */
export interface StoredHistory {
  added: number;
  replaced: number;
  firstReplaced: Date | null;
}

/** Equal as the numeric(12, 8) columns store them (rounded half away from zero). */
const sameStored = (stored: string, next: Decimal) =>
  new Decimal(stored).equals(next.toDecimalPlaces(8, Decimal.ROUND_HALF_UP));

/** One market_history_prices row as written: a market's hours of one UTC day. */
interface DayPrices {
  c: string;
  day: Date;
  hours: number[];
  bid: string[];
  ask: string[];
  mid: string[];
  last: Date;
}

/** Stored prices of a market's day, by hour (ms): bid, ask, mid as the database prints them. */
type HeldDay = Map<number, [string, string, string]>;

/** The hours a snapshot row holds, by market, from `first` to `last`. */
async function snapshotHours(
  tx: Prisma.TransactionClient,
  ids: string[],
  first: number,
  last: number,
): Promise<Map<string, Set<number>>> {
  const taken = new Map<string, Set<number>>();
  if (first > last) return taken;
  for (const r of await tx.$queryRawUnsafe<Array<{ c: string; ms: number }>>(
    `SELECT "conditionId" AS c, (extract(epoch FROM "observedAt") * 1000)::float8 AS ms FROM market_snapshots WHERE "conditionId" = ANY($1::text[]) AND "observedAt" >= $2 AND "observedAt" <= $3`,
    ids,
    new Date(first),
    new Date(last),
  ))
    (taken.get(r.c) ?? taken.set(r.c, new Set()).get(r.c)!).add(r.ms);
  return taken;
}

/** The rows already stored for these days, by `id|day`, each also put in `into`. */
async function storedDays(
  tx: Prisma.TransactionClient,
  ids: string[],
  from: number,
  until: number,
  into?: HeldHistory,
): Promise<Map<string, HeldDay>> {
  const held = new Map<string, HeldDay>();
  for (const r of await tx.$queryRawUnsafe<
    Array<{ c: string; day: number; hours: string; bid: string; ask: string; mid: string }>
  >(
    `SELECT "conditionId" AS c, (extract(epoch FROM day) * 1000)::float8 AS day, hours::text, "bestBid"::text AS bid, "bestAsk"::text AS ask, mid::text
     FROM market_history_prices WHERE "conditionId" = ANY($1::text[]) AND day >= $2 AND day <= $3`,
    ids,
    new Date(from),
    new Date(until),
  )) {
    const [h, b, a, m] = [cells(r.hours), cells(r.bid), cells(r.ask), cells(r.mid)];
    held.set(`${r.c}|${r.day}`, new Map(h.map((x, i) => [r.day + Number(x) * MS_PER_HOUR, [b[i]!, a[i]!, m[i]!]])));
    if (into) h.forEach((x, i) => into.set(r.c, r.day + Number(x) * MS_PER_HOUR, b[i]!, a[i]!, m[i]!));
  }
  return held;
}

/** A day's new hours with the held ones it keeps, in order among them. */
function mergedDay(row: DayPrices, prior: HeldDay): DayPrices {
  const day = row.day.getTime();
  const byHour = new Map<number, [string, string, string]>(prior);
  row.hours.forEach((h, i) => byHour.set(day + h * MS_PER_HOUR, [row.bid[i]!, row.ask[i]!, row.mid[i]!]));
  const hours = [...byHour.keys()].sort((x, y) => x - y);
  return {
    c: row.c,
    day: row.day,
    hours: hours.map((ms) => (ms - day) / MS_PER_HOUR),
    bid: hours.map((ms) => byHour.get(ms)![0]),
    ask: hours.map((ms) => byHour.get(ms)![1]),
    mid: hours.map((ms) => byHour.get(ms)![2]),
    last: new Date(hours.at(-1)!),
  };
}

/**
 * A market's day rows to write: its points not held by a snapshot row, a stored price kept when
 * unchanged and replaced when the venue corrected it (counted in `out`), merged with the held hours.
 */
function marketDays(
  id: string,
  points: readonly HistoryPoint[],
  takenHours: ReadonlySet<number> | undefined,
  held: ReadonlyMap<string, HeldDay>,
  out: StoredHistory,
  rows: DayPrices[],
  into?: HeldHistory,
): void {
  let row: DayPrices | null = null;
  let prior: HeldDay | undefined;
  const close = () => {
    const done: DayPrices | null = row && prior ? mergedDay(row, prior) : row;
    if (done?.hours.length) rows.push(done);
    row = null;
  };
  for (const p of points) {
    const ms = p.t.getTime();
    if (takenHours?.has(ms)) continue;
    const day = dayOf(ms);
    if (row === null || (row as DayPrices).day.getTime() !== day) {
      close();
      prior = held.get(`${id}|${day}`);
      row = { c: id, day: new Date(day), hours: [], bid: [], ask: [], mid: [], last: p.t };
    }
    const was = prior?.get(ms);
    if (was) {
      if (sameStored(was[0], p.bestBid) && sameStored(was[1], p.bestAsk) && sameStored(was[2], p.mid)) continue;
      // the venue corrected its history: the new price replaces the stored one (close() lets it win)
      out.replaced += 1;
      if (out.firstReplaced === null || ms < out.firstReplaced.getTime()) out.firstReplaced = p.t;
    } else out.added += 1;
    const r: DayPrices = row!;
    r.hours.push((ms - day) / MS_PER_HOUR);
    r.bid.push(fullPrecision(p.bestBid));
    r.ask.push(fullPrecision(p.bestAsk));
    r.mid.push(fullPrecision(p.mid));
    into?.set(id, ms, p.bestBid, p.bestAsk, p.mid);
    r.last = p.t;
  }
  close();
}

/**
 * Writes day rows, a stored row of the same market and day replaced. Each batch travels as one
 * JSON parameter: far cheaper through the client than seven arrays of thousands of values (the
 * same reason as insertLevels's).
 */
async function writeDays(tx: Prisma.TransactionClient, rows: readonly DayPrices[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DAY_ROWS_PER_INSERT) {
    const batch = rows
      .slice(i, i + DAY_ROWS_PER_INSERT)
      .map((r) => [
        r.c,
        r.day.toISOString(),
        `{${r.hours.join(",")}}`,
        `{${r.bid.join(",")}}`,
        `{${r.ask.join(",")}}`,
        `{${r.mid.join(",")}}`,
        r.last.toISOString(),
      ]);
    await tx.$executeRawUnsafe(
      `INSERT INTO market_history_prices ("conditionId", day, hours, "bestBid", "bestAsk", mid, "lastAt")
       SELECT e->>0, (e->>1)::timestamptz, (e->>2)::smallint[], (e->>3)::numeric[], (e->>4)::numeric[], (e->>5)::numeric[], (e->>6)::timestamptz
       FROM json_array_elements($1::json) AS e
       ON CONFLICT ("conditionId", day) DO UPDATE SET hours = excluded.hours, "bestBid" = excluded."bestBid", "bestAsk" = excluded."bestAsk", mid = excluded.mid, "lastAt" = excluded."lastAt"`,
      JSON.stringify(batch),
    );
  }
}

/**
 * Stores hourly prices as the venue serves them now: an hour with a snapshot row is left as it is
 * (the snapshot wins), a stored history price the venue has since changed (a corrected history)
 * is replaced, an unchanged one stays. Returns how many prices were added and replaced. With
 * `into`, every stored price of these markets within its days (the ones stored before and the
 * ones written) is put there as well, for a computation that follows.
 */
export async function storeHistoryPrices(
  tx: Prisma.TransactionClient,
  history: ReadonlyMap<string, readonly HistoryPoint[]>,
  into?: HeldHistory,
): Promise<StoredHistory> {
  const ids = [...history.keys()];
  const out: StoredHistory = { added: 0, replaced: 0, firstReplaced: null };
  if (ids.length === 0) return out;
  for (const id of ids) into?.hold(id);
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const points of history.values()) {
    if (!points.length) continue;
    first = Math.min(first, points[0]!.t.getTime());
    last = Math.max(last, points.at(-1)!.t.getTime());
  }
  if (first > last && !into) return out;
  // the rows of the days written (their held hours are merged) and of the days `into` holds
  const heldFrom = Math.min(dayOf(first), into?.start ?? Infinity);
  const heldUntil = Math.max(dayOf(last), into ? dayOf(into.end) : -Infinity);
  const taken = await snapshotHours(tx, ids, first, last);
  const held = await storedDays(tx, ids, heldFrom, heldUntil, into);
  const rows: DayPrices[] = [];
  for (const [id, points] of history) marketDays(id, points, taken.get(id), held, out, rows, into);
  await writeDays(tx, rows);
  return out;
}

/** One day row as the overlay query sends it: condition id, day (ms), hours, bids, asks, mids, leg key, label, settlement day. */
type DayRow = [string, number, string, string, string, string, string | null, string, string | null];

/**
 * The stored history prices from `from` to `until` (inclusive) as `history` snapshots in time
 * order, without the hours a snapshot row holds. `settlementOf` shares the Date of a settlement
 * day between snapshots. The prices `held` holds in memory are not read again.
 */
export async function loadHistorySnapshots(
  db: Reader,
  from: Date,
  until: Date,
  settlementOf: (text: string | null) => Date | null,
  held?: HeldHistory,
): Promise<Snapshot[]> {
  const [answer] = await db.$queryRawUnsafe<Array<{ rows: string | null }>>(
    `SELECT json_agg(json_build_array(h."conditionId", (extract(epoch FROM h.day) * 1000)::float8, h.hours::text, h."bestBid"::text, h."bestAsk"::text, h.mid::text,
       m."legKey", m.label, m."settlementDate"::text))::text AS rows
     FROM market_history_prices h JOIN markets m ON m."conditionId" = h."conditionId"
     WHERE h.day >= $1 AND h.day <= $2 AND h."lastAt" >= $3 AND NOT (h."conditionId" = ANY($4::text[]) AND h.day >= $5 AND h.day <= $6)`,
    new Date(dayOf(from.getTime())),
    until,
    from,
    held?.markets ?? [],
    new Date(held?.start ?? 0),
    new Date(held ? dayOf(held.end) : 0),
  );
  const rows = answer?.rows ? (JSON.parse(answer.rows) as DayRow[]) : [];
  if (rows.length === 0) return [];
  const zero = dec("0");
  const lo = from.getTime();
  const hi = until.getTime();
  const out: Snapshot[] = [];
  const dates = new Map<number, Date>();
  for (const [conditionId, day, hoursText, bids, asks, mids, legKey, label, settlement] of rows) {
    const hours = cells(hoursText);
    const [b, a, m] = [cells(bids), cells(asks), cells(mids)];
    const settlementDate = settlementOf(settlement);
    for (let i = 0; i < hours.length; i++) {
      const ms = day + Number(hours[i]) * MS_PER_HOUR;
      if (ms < lo || ms > hi) continue;
      let observedAt = dates.get(ms);
      if (!observedAt) dates.set(ms, (observedAt = new Date(ms)));
      // Decimals are immutable: equal cells share one (dec gives the same decimal for the same text)
      const bestBid = dec(b[i]!);
      const bestAsk = dec(a[i]!);
      out.push({
        observedAt,
        conditionId,
        legKey,
        label,
        bestBid,
        bestAsk,
        mid: dec(m[i]!),
        depthUsd: zero,
        settlementDate,
        resolved: false,
        outcome: null,
        source: "history",
      });
    }
  }
  return out.sort((x, y) => x.observedAt.getTime() - y.observedAt.getTime());
}

/** The stored history hours of these markets from `from` to `until` (inclusive). */
export async function historyHours(
  db: Reader,
  ids: readonly string[],
  from: Date,
  until: Date,
): Promise<HistoryPrice[]> {
  if (ids.length === 0) return [];
  const rows = await db.$queryRawUnsafe<
    Array<{ c: string; day: number; hours: string; bid: string; ask: string; mid: string }>
  >(
    `SELECT "conditionId" AS c, (extract(epoch FROM day) * 1000)::float8 AS day, hours::text, "bestBid"::text AS bid, "bestAsk"::text AS ask, mid::text
     FROM market_history_prices WHERE "conditionId" = ANY($1::text[]) AND day >= $2 AND day <= $3 AND "lastAt" >= $4`,
    [...ids],
    new Date(dayOf(from.getTime())),
    until,
    from,
  );
  const out: HistoryPrice[] = [];
  for (const r of rows) {
    const [h, b, a, m] = [cells(r.hours), cells(r.bid), cells(r.ask), cells(r.mid)];
    h.forEach((x, i) => {
      const ms = r.day + Number(x) * MS_PER_HOUR;
      if (ms >= from.getTime() && ms <= until.getTime())
        out.push({ conditionId: r.c, observedAt: new Date(ms), bestBid: b[i]!, bestAsk: a[i]!, mid: m[i]! });
    });
  }
  return out;
}

/** The newest stored history hour per market (of these markets, or of all). */
export async function newestHistoryHours(db: Reader, ids?: readonly string[]): Promise<Map<string, Date>> {
  const rows = ids
    ? await db.$queryRawUnsafe<Array<{ c: string; last: Date }>>(
        `SELECT "conditionId" AS c, max("lastAt") AS last FROM market_history_prices WHERE "conditionId" = ANY($1::text[]) GROUP BY 1`,
        [...ids],
      )
    : await db.$queryRawUnsafe<Array<{ c: string; last: Date }>>(
        `SELECT "conditionId" AS c, max("lastAt") AS last FROM market_history_prices GROUP BY 1`,
      );
  return new Map(rows.map((r) => [r.c, r.last]));
}
