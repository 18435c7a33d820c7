import type { Rng } from "./demo-prng";
import type { DemoEventState, DemoQuoteParams, DemoSnapshotJson } from "./demo-state";

// Turns a fair probability into a quoted book: tick 0.001, spread of 1-4 cents (narrower near 0 and 1),
// partition legs padded by the event's overround, stress episodes that thin and widen the book.

const TICK = 1000;

export function quoteSnapshot(
  rng: Rng,
  t: Date,
  fair: number,
  q: DemoQuoteParams,
  event?: DemoEventState,
): DemoSnapshotJson {
  const episode = event?.episode ?? null;
  const stress = episode?.kind === "stress" ? episode.level : 1;
  const overround =
    event === undefined ? 1 : episode !== null && episode.kind !== "stress" ? episode.level : event.overround;
  const center = Math.min(0.9985, Math.max(0.0015, fair * overround));
  const nominal = q.spreadBase * stress * (0.8 + 0.4 * rng.next());
  const cap = stress > 1 ? Number.POSITIVE_INFINITY : 0.9 * Math.min(center, 1 - center);
  const spread = Math.max(0.002, Math.min(nominal, cap));
  const ask = Math.min(TICK - 1, Math.max(2, Math.round((center + spread / 2) * TICK)));
  const bid = Math.min(ask - 1, Math.max(1, Math.round((center - spread / 2) * TICK)));
  const depth = (q.depthBase * Math.exp(0.35 * rng.normal())) / (stress > 1 ? stress * 2.5 : 1);
  return {
    observedAt: t.toISOString(),
    bestBid: (bid / TICK).toFixed(3),
    bestAsk: (ask / TICK).toFixed(3),
    mid: ((bid + ask) / (2 * TICK)).toFixed(4),
    depthUsd: depth.toFixed(2),
    resolved: false,
    outcome: null,
  };
}

/** A settled market quotes its outcome with no book. */
export function resolvedSnapshot(t: Date, outcome: 0 | 1): DemoSnapshotJson {
  const price = outcome.toFixed(3);
  return {
    observedAt: t.toISOString(),
    bestBid: price,
    bestAsk: price,
    mid: outcome.toFixed(4),
    depthUsd: "0.00",
    resolved: true,
    outcome,
  };
}
