import type Decimal from "decimal.js";
import { Dec as D } from "@/lib/engine/decimal";

// The engine's arithmetic settings (lib/engine/decimal.ts).

/** Relative change from `from` to `to` in percent, exact; null when either is missing or `from` is zero. */
export function changePct(from: string | null | undefined, to: string | null | undefined): Decimal | null {
  if (!from || !to) return null;
  const a = new D(from);
  const b = new D(to);
  if (a.isZero()) return null;
  return b.minus(a).div(a).times(100);
}

/** `+1.23%`, `-0.40%`, `0.00%` (two decimals, half-even); an em dash when there is no change to show. */
export function formatPct(pct: Decimal | null, digits = 2): string {
  if (pct === null) return "—";
  const fixed = new D(pct).toFixed(digits);
  const zero = new D(fixed).isZero();
  if (zero) return `${new D(0).toFixed(digits)}%`;
  return `${pct.isNegative() ? "" : "+"}${fixed}%`;
}

/** Direction for colour and screen-reader words. */
export function changeDirection(pct: Decimal | null, digits = 2): "up" | "down" | "flat" | "none" {
  if (pct === null) return "none";
  const rounded = new D(pct.toFixed(digits));
  return rounded.isZero() ? "flat" : rounded.isNegative() ? "down" : "up";
}
