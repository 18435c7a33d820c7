import Decimal from "decimal.js";

/** A price level: price as a probability in [0, 1], size in contracts (shares). */
export interface Level {
  price: Decimal;
  size: Decimal;
}

export interface Quote {
  bestBid: Decimal;
  bestAsk: Decimal;
  mid: Decimal;
  depthUsd: Decimal;
}

/** Depth counts the levels within this distance of the mid (probability units), documented on /docs/ingestion. */
export const DEPTH_BAND = new Decimal("0.05");

/** A decimal string or number as plain decimal text; null when it is not a finite decimal. */
export function decimalText(v: unknown): string | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).trim();
  return /^-?\d+(\.\d+)?$/.test(s) ? s : null;
}

/** Reads a decimal string or number; null when it is not a finite decimal. */
export function decimalOf(v: unknown): Decimal | null {
  const s = decimalText(v);
  return s === null ? null : new Decimal(s);
}

/**
 * The snapshot quote of a YES book: best bid and ask (sorted here, whatever order the venue
 * sent), mid, and the USD notional of both sides within DEPTH_BAND of the mid. A one-sided,
 * empty or crossed book has no quote: the market is stale this hour.
 */
export function quoteOf(bids: readonly Level[], asks: readonly Level[]): { quote: Quote } | { problem: string } {
  const valid = (l: Level) => l.price.greaterThan(0) && l.price.lessThan(1) && l.size.greaterThan(0);
  const b = bids.filter(valid).sort((x, y) => y.price.comparedTo(x.price));
  const a = asks.filter(valid).sort((x, y) => x.price.comparedTo(y.price));
  if (b.length === 0 && a.length === 0) return { problem: "empty book" };
  if (b.length === 0) return { problem: "no bids" };
  if (a.length === 0) return { problem: "no asks" };
  const bestBid = b[0]!.price;
  const bestAsk = a[0]!.price;
  if (bestBid.greaterThanOrEqualTo(bestAsk))
    return { problem: `crossed book (bid ${bestBid.toString()} >= ask ${bestAsk.toString()})` };
  const mid = bestBid.plus(bestAsk).dividedBy(2);
  const near = (l: Level) => l.price.minus(mid).abs().lessThanOrEqualTo(DEPTH_BAND);
  const depthUsd = [...b.filter(near), ...a.filter(near)].reduce(
    (acc, l) => acc.plus(l.price.times(l.size)),
    new Decimal(0),
  );
  return { quote: { bestBid, bestAsk, mid, depthUsd: depthUsd.toDecimalPlaces(2) } };
}
