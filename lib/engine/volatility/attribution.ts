// Two-factor Shapley split of a move in headline pts^2: price and clock each get the average of
// their effect over both orders of applying the changes, so price + clock = total with no residual.

export interface LegClock {
  days: number | null;
  speed: number;
}

/** An ordered partition's leg: Phi^-1 of the cumulative probability below it and up to it. */
export interface LegShape {
  lo: number;
  hi: number;
}

export interface AttributionLegInput {
  legKey: string;
  label: string;
  gridOrder: number;
  /** previous and current probability; a leg absent on one side counts as p = 0 there */
  p0: number;
  p1: number;
  clock0: LegClock;
  clock1: LegClock;
  /** ordered partitions: the leg's thresholds before and after (they move with its price) */
  shape0?: LegShape;
  shape1?: LegShape;
}

export interface LegSplit {
  legKey: string;
  label: string;
  gridOrder: number;
  deltaPrice: number;
  deltaClock: number;
  delta: number;
}

export function shapleyTwoFactor(f00: number, f10: number, f01: number, f11: number): { price: number; clock: number } {
  return { price: (f10 - f00 + (f11 - f01)) / 2, clock: (f01 - f00 + (f11 - f10)) / 2 };
}

/** Splits each leg's change in headline variance (points^2) into price and clock parts. */
export function attributeLegs(
  legs: readonly AttributionLegInput[],
  f: (p: number, clock: LegClock, shape?: LegShape) => number,
): LegSplit[] {
  return legs.map((leg) => {
    const f00 = f(leg.p0, leg.clock0, leg.shape0);
    const f10 = f(leg.p1, leg.clock0, leg.shape1);
    const f01 = f(leg.p0, leg.clock1, leg.shape0);
    const f11 = f(leg.p1, leg.clock1, leg.shape1);
    const { price, clock } = shapleyTwoFactor(f00, f10, f01, f11);
    return {
      legKey: leg.legKey,
      label: leg.label,
      gridOrder: leg.gridOrder,
      deltaPrice: price,
      deltaClock: clock,
      delta: f11 - f00,
    };
  });
}
