import type Decimal from "decimal.js";
import { dec } from "./decimal";
import type { CompositionRecord } from "./types";

export const BASE_LEVEL = "100";

/** Basket value B = sum of w_i * p_i, exact in the engine's decimal context. */
export function basketValue(items: readonly { weight: Decimal.Value; price: Decimal.Value }[]): Decimal {
  return items.reduce((sum, item) => sum.plus(dec(item.weight).times(dec(item.price))), dec(0));
}

/** L_t = L_k * B_t / B_k: multiply first so exact ratios stay exact. */
export function chainLevel(linkLevel: Decimal.Value, basketNow: Decimal.Value, linkBasket: Decimal.Value): Decimal {
  return dec(linkLevel).times(dec(basketNow)).div(dec(linkBasket));
}

/** Level per unit of basket value at a link (the inverse of the classic divisor), unrounded. */
export function linkFactorOf(linkLevel: Decimal.Value, linkBasket: Decimal.Value): Decimal {
  return dec(linkLevel).div(dec(linkBasket));
}

/** Equal target weights: every constituent holds one unit (the common scale cancels in L). */
export function equalWeight(): string {
  return "1";
}

/**
 * From-scratch recomputation of the unrounded level at t from the composition history and the
 * prices the engine saw: L = 100, then at every link L <- L * B_old(k) / B_old(k_prev).
 */
export function recomputeLevel(
  compositions: readonly CompositionRecord[],
  priceAt: (conditionId: string, t: Date) => Decimal.Value,
  t: Date,
): Decimal {
  const ordered = [...compositions]
    .filter((c) => c.effectiveAt.getTime() <= t.getTime())
    .sort((a, b) => a.effectiveAt.getTime() - b.effectiveAt.getTime());
  const first = ordered[0];
  if (first === undefined) throw new RangeError("no composition is effective at the requested time");
  const basketOf = (c: CompositionRecord, at: Date) =>
    basketValue(c.members.map((m) => ({ weight: m.targetWeight, price: priceAt(m.conditionId, at) })));
  let level = dec(BASE_LEVEL);
  for (let i = 1; i < ordered.length; i++) {
    const prev = ordered[i - 1] as CompositionRecord;
    const next = ordered[i] as CompositionRecord;
    level = chainLevel(level, basketOf(prev, next.effectiveAt), basketOf(prev, prev.effectiveAt));
  }
  const last = ordered[ordered.length - 1] as CompositionRecord;
  return chainLevel(level, basketOf(last, t), basketOf(last, last.effectiveAt));
}
