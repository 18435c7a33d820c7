// Plain-language meaning of each publication gate (lib/engine/volatility/gates.ts); the
// tick's own `publicDetail` says what happened, this says what the gate checks.

export const GATE_MEANING: Readonly<Record<string, string>> = {
  leg_missing: "Every outcome of the event must have been quoted at least once.",
  snapshot_age: "Each outcome's latest quote must be recent enough.",
  depth_floor: "Each outcome's order book must hold enough money to trade against.",
  spread_to_mid: "The gap between bid and ask must be small compared with the price.",
  impact: "Moving one outcome to its bid or ask must not move the headline by more than a set budget.",
  overround: "The outcome prices must not add up to much more than 1.",
  underround: "The outcome prices must not add up to much less than 1.",
  snapshot_skew: "All outcomes must have been quoted at about the same time.",
  arbitrage: "Buying or selling every outcome at once must not lock in a riskless profit.",
  devig: "Two ways of removing the bookmaker margin must agree on every outcome.",
  pythagorean: "Each published value must equal the combination of its outcomes' values.",
  identity: "The move since the previous value must split exactly into price and clock parts.",
  failing_budget_share:
    "Outcomes that fail their checks must not carry too much of the uncertainty; past that limit the value is withheld.",
};

export function gateMeaning(gate: string): string {
  return GATE_MEANING[gate] ?? "A publication check on the inputs of this value.";
}

/** What a tick's status means for a reader. */
export const STATUS_MEANING: Readonly<Record<string, string>> = {
  ok: "Every publication check passed.",
  flagged: "The value is published; one or more checks flagged its inputs, and the flags below are the disclosure.",
  suspended: "The value did not clear its publication checks and is withheld; the last published value is shown.",
};
