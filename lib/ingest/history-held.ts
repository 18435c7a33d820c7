import type Decimal from "decimal.js";
import { dec } from "@/lib/engine/decimal";
import { MS_PER_DAY, MS_PER_HOUR } from "@/lib/engine/time-format";
import type { Snapshot } from "@/lib/engine/types";

/** What a history snapshot takes from its market row. */
export interface HistoryMarketInfo {
  legKey: string | null;
  label: string;
  settlementDate: Date | null;
}

/**
 * The stored history prices of some markets over whole UTC days, held in memory by a
 * back-calculation between storing them and computing from them: exactly what
 * market_history_prices holds for these markets and days once they are stored, so the computation
 * need not read them back. Each price is an index into a table of decimals (a few thousand distinct
 * prices among millions), three per market and hour in a typed array the garbage collector never
 * walks: about 26 KB per market for 90 days.
 */
export class HeldHistory {
  /** Three 4-byte price indices per market and hour. */
  static readonly BYTES_PER_MARKET_HOUR = 12;
  /** the first held day's midnight and the number of hours held (whole days) */
  readonly start: number;
  readonly hours: number;
  private readonly prices: Decimal[] = [];
  private readonly priceIndex = new Map<Decimal, number>();
  /** by market: bid, ask and mid index + 1 per hour (0: no price that hour) */
  private readonly byMarket = new Map<string, Uint32Array>();

  /** Holds the days from the one containing `first` through the one containing `last`. */
  constructor(first: Date, last: Date) {
    this.start = Math.floor(first.getTime() / MS_PER_DAY) * MS_PER_DAY;
    this.hours = (Math.floor(last.getTime() / MS_PER_DAY) * MS_PER_DAY + MS_PER_DAY - this.start) / MS_PER_HOUR;
  }

  /** The last hour held (inclusive). */
  get end(): number {
    return this.start + (this.hours - 1) * MS_PER_HOUR;
  }

  /** Whether this market's prices are held (every stored price of it within the held days). */
  has(conditionId: string): boolean {
    return this.byMarket.has(conditionId);
  }

  get markets(): string[] {
    return [...this.byMarket.keys()];
  }

  /** Takes this market's prices as held (an empty market holds no price until `set`). */
  hold(conditionId: string): void {
    if (!this.byMarket.has(conditionId)) this.byMarket.set(conditionId, new Uint32Array(this.hours * 3));
  }

  /** The stored price of a held market at hour `ms` (decimals as stored text or decimals). */
  set(conditionId: string, ms: number, bid: Decimal | string, ask: Decimal | string, mid: Decimal | string): void {
    const cells = this.byMarket.get(conditionId);
    const at = (ms - this.start) / MS_PER_HOUR;
    if (!cells || at < 0 || at >= this.hours || !Number.isInteger(at)) return;
    cells[at * 3] = this.indexOf(bid);
    cells[at * 3 + 1] = this.indexOf(ask);
    cells[at * 3 + 2] = this.indexOf(mid);
  }

  private indexOf(value: Decimal | string): number {
    const d = dec(value);
    let i = this.priceIndex.get(d);
    if (i === undefined) {
      i = this.prices.push(d);
      this.priceIndex.set(d, i);
    }
    return i;
  }

  /**
   * The held prices from `from` to `until` (inclusive) as `history` snapshots in time order, as
   * loadHistorySnapshots gives the stored ones; a market without a row in `info` is left out (it
   * has no market row, so the database would join none).
   */
  snapshots(from: number, until: number, info: ReadonlyMap<string, HistoryMarketInfo>): Snapshot[] {
    const lo = Math.max(0, Math.ceil((from - this.start) / MS_PER_HOUR));
    const hi = Math.min(this.hours - 1, Math.floor((until - this.start) / MS_PER_HOUR));
    const zero = dec("0");
    const out: Snapshot[] = [];
    const markets = [...this.byMarket].flatMap(([id, cells]) => {
      const m = info.get(id);
      return m ? [{ id, cells, m }] : [];
    });
    for (let h = lo; h <= hi; h++) {
      const observedAt = new Date(this.start + h * MS_PER_HOUR);
      for (const { id, cells, m } of markets) {
        const bid = cells[h * 3]!;
        if (bid === 0) continue;
        out.push({
          observedAt,
          conditionId: id,
          legKey: m.legKey,
          label: m.label,
          bestBid: this.prices[bid - 1]!,
          bestAsk: this.prices[cells[h * 3 + 1]! - 1]!,
          mid: this.prices[cells[h * 3 + 2]! - 1]!,
          depthUsd: zero,
          settlementDate: m.settlementDate,
          resolved: false,
          outcome: null,
          source: "history",
        });
      }
    }
    return out;
  }
}
