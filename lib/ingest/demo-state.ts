// JSON-safe state of the demo market generator: persisting it and resuming continues the same feed.

export interface DemoQuoteParams {
  /** nominal bid-ask spread, probability units */
  spreadBase: number;
  /** typical book depth, USD */
  depthBase: number;
  /** chance per hour that the market goes dark (no snapshot) */
  darkRate: number;
  darkHours: [number, number];
}

/** How a market's fair probability evolves. */
export type DemoModel =
  /** own Brownian state x (units of sigma * sqrt(day)); YES iff x > 0 at settlement; p = Phi(x / sqrt(days left)) */
  | { kind: "latent"; x: number }
  /** YES iff the shared factor ends above the strike */
  | { kind: "factor"; factor: string; strike: number }
  /** a leg of a partition event; its probability comes from the event */
  | { kind: "leg"; eventKey: string; index: number };

export interface DemoSnapshotJson {
  observedAt: string;
  bestBid: string;
  bestAsk: string;
  mid: string;
  depthUsd: string;
  resolved: boolean;
  outcome: 0 | 1 | null;
}

export interface DemoMarketState {
  conditionId: string;
  label: string;
  legKey: string | null;
  eventKey: string | null;
  theme: string;
  listedAt: string;
  settlementAt: string;
  model: DemoModel;
  quote: DemoQuoteParams;
  rng: number;
  darkUntilHour: number;
  resolved: boolean;
  outcome: 0 | 1 | null;
  resolvedAt: string | null;
  resolvedHour: number | null;
  last: DemoSnapshotJson | null;
}

export type DemoEventModel =
  /** leg i wins iff the factor ends in [edges[i], edges[i + 1]) (edges exclude the infinite ends) */
  | { kind: "threshold"; factor: string; edges: number[] }
  /** Wright-Fisher martingale on the simplex: p_j <- p_j (1 + s (e_j - sum p_k e_k)) */
  | { kind: "shares"; p: number[]; kappa: number };

export type DemoProfile = "clean" | "flaggy" | "thin";

export interface DemoEpisode {
  kind: "overround" | "underround" | "stress";
  level: number;
  untilHour: number;
}

export interface DemoEventState {
  eventKey: string;
  theme: string;
  settlementAt: string;
  legIds: string[];
  model: DemoEventModel;
  profile: DemoProfile;
  overround: number;
  episode: DemoEpisode | null;
  rng: number;
  resolved: boolean;
  winner: number | null;
}

/** A shared Brownian factor (log price, rate expectation, ...). */
export interface DemoFactorState {
  name: string;
  x: number;
  sigmaPerDay: number;
  rng: number;
}

export interface DemoState {
  version: 1;
  seed: number;
  start: string;
  /** index of the last generated hour; -1 before the first */
  hour: number;
  factors: Record<string, DemoFactorState>;
  events: DemoEventState[];
  markets: DemoMarketState[];
  /** next event number per scheduled theme */
  cursors: Record<string, number>;
}
