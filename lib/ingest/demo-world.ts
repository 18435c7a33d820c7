import { sha256Hex } from "@/lib/engine/sha256";
import { MS_PER_DAY, MS_PER_HOUR, isoDate } from "@/lib/engine/time-format";
import type { Rng } from "./demo-prng";
import type { DemoEventModel, DemoModel, DemoProfile, DemoQuoteParams } from "./demo-state";

// The demo venue's fictional world: themes, their listing schedules and the partitions (events)
// it lists. Everything derives from (seed, start). Which indices and series are built on it is
// the catalog's business: catalog/demo.json.

export function conditionIdOf(seed: number, marketKey: string): string {
  return `0x${sha256Hex(`demo:${seed}:${marketKey}`)}`;
}

/** Midnight UTC `days` calendar days after the day of `from`. */
export function midnightAfter(from: Date, days: number): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + days));
}

export function hourAt(start: Date, hour: number): Date {
  return new Date(start.getTime() + hour * MS_PER_HOUR);
}

const CANDIDATES = [
  "Avery Chen",
  "Jordan Malik",
  "Priya Raman",
  "Lucas Ortega",
  "Hannah Weiss",
  "Samuel Okafor",
  "Elena Petrova",
  "Marcus Boyd",
  "Nora Lindqvist",
  "Diego Alvarez",
  "Grace Kim",
  "Tomas Silva",
  "Ines Haddad",
  "Owen Fletcher",
];
const RACES = [
  "Ardenia governor",
  "Port Calder mayoral",
  "Westmark senate",
  "Lowland assembly",
  "Eastvale council",
  "Northmere referendum",
  "Kestrel Bay mayoral",
  "Highridge governor",
];
const INDICATORS = [
  { name: "Headline CPI YoY", unit: "%", base: 2.8, step: 0.1 },
  { name: "Unemployment rate", unit: "%", base: 4.2, step: 0.1 },
  { name: "Core PCE YoY", unit: "%", base: 2.6, step: 0.1 },
  { name: "Nonfarm payrolls", unit: "k", base: 150, step: 25 },
  { name: "GDP QoQ annualized", unit: "%", base: 2.0, step: 0.25 },
];
const TEAMS = [
  "Harbor City Gulls",
  "Ridgeback Rovers",
  "Cedar Falls Comets",
  "Ironwood Miners",
  "Bayside Herons",
  "Granite Peaks",
  "Summit Owls",
  "Riverton Pilots",
  "Lakeshore Loons",
  "Foxhollow Kings",
];

/** A market to list: everything except its generated runtime state. */
export interface MarketSpec {
  key: string;
  label: string;
  legKey: string | null;
  eventKey: string | null;
  theme: string;
  listedAt: Date;
  settlementAt: Date;
  model: DemoModel;
  quote: DemoQuoteParams;
}

export interface FactorSpec {
  name: string;
  x0: number;
  sigmaPerDay: number;
}

export const FACTORS: readonly FactorSpec[] = [
  { name: "btc", x0: Math.log(96_000), sigmaPerDay: 0.028 },
  { name: "eth", x0: Math.log(3_400), sigmaPerDay: 0.036 },
  { name: "fed", x0: -14, sigmaPerDay: 2.2 },
  { name: "storms", x0: 17, sigmaPerDay: 0.35 },
];

function binaryQuote(rng: Rng): DemoQuoteParams {
  return {
    spreadBase: rng.between(0.01, 0.04),
    depthBase: Math.exp(rng.between(Math.log(400), Math.log(25_000))),
    darkRate: 0.002,
    darkHours: [1, 5],
  };
}

/** Latent start so that p = p0 with `days` left. */
function latentFor(p0: number, days: number, inv: (p: number) => number): DemoModel {
  return { kind: "latent", x: inv(p0) * Math.sqrt(days) };
}

/** A theme's recurring listings of binary markets. */
export interface ThemeSchedule {
  theme: string;
  cadenceDays: number;
  /** no listings after this many days from start (null: forever) */
  listUntilDay: number | null;
  /** events listed before start, present at hour 0 */
  preListed: number;
  make: (ctx: EventContext) => MarketSpec[];
}

export interface EventContext {
  rng: Rng;
  k: number;
  listedAt: Date;
  /** settlement earliest this long after start (pre-listed events must still be open at start) */
  start: Date;
  factor: (name: string) => number;
  inv: (p: number) => number;
}

function settleAfter(ctx: EventContext, minDays: number, maxDays: number): Date {
  const raw = midnightAfter(ctx.listedAt, ctx.rng.int(minDays, maxDays));
  const floor = midnightAfter(ctx.start, ctx.rng.int(2, 12));
  return raw.getTime() > floor.getTime() ? raw : floor;
}

function daysBetween(a: Date, b: Date): number {
  return Math.max(1, (b.getTime() - a.getTime()) / MS_PER_DAY);
}

export const THEME_SCHEDULES: readonly ThemeSchedule[] = [
  {
    theme: "elections",
    cadenceDays: 4,
    listUntilDay: null,
    preListed: 5,
    make: (ctx) => {
      const race = ctx.rng.pick(RACES);
      const settlementAt = settleAfter(ctx, 18, 50);
      const count = ctx.rng.int(1, 2);
      return Array.from({ length: count }, (_, i) => {
        const candidate = ctx.rng.pick(CANDIDATES);
        const p0 = ctx.rng.between(0.15, 0.85);
        return {
          key: `elections:${ctx.k}:${i}`,
          label: `Will ${candidate} win the ${race} race on ${isoDate(settlementAt)}?`,
          legKey: null,
          eventKey: `elections-${ctx.k}`,
          theme: "elections",
          listedAt: ctx.listedAt,
          settlementAt,
          model: latentFor(p0, daysBetween(ctx.listedAt, settlementAt), ctx.inv),
          quote: binaryQuote(ctx.rng),
        };
      });
    },
  },
  {
    theme: "macro",
    cadenceDays: 5,
    listUntilDay: null,
    preListed: 4,
    make: (ctx) => {
      const settlementAt = settleAfter(ctx, 14, 40);
      const count = ctx.rng.int(1, 2);
      return Array.from({ length: count }, (_, i) => {
        const ind = ctx.rng.pick(INDICATORS);
        const threshold = ind.base + ind.step * ctx.rng.int(-2, 2);
        const shown = ind.unit === "k" ? `${threshold.toFixed(0)}k` : `${threshold.toFixed(2)}%`;
        return {
          key: `macro:${ctx.k}:${i}`,
          label: `Will ${ind.name} print above ${shown} in the release of ${isoDate(settlementAt)}?`,
          legKey: null,
          eventKey: `macro-${ctx.k}`,
          theme: "macro",
          listedAt: ctx.listedAt,
          settlementAt,
          model: latentFor(ctx.rng.between(0.2, 0.8), daysBetween(ctx.listedAt, settlementAt), ctx.inv),
          quote: binaryQuote(ctx.rng),
        };
      });
    },
  },
  {
    theme: "crypto",
    cadenceDays: 3,
    listUntilDay: null,
    preListed: 5,
    make: (ctx) => {
      const settlementAt = settleAfter(ctx, 7, 30);
      const coin = ctx.rng.chance(0.6) ? "btc" : "eth";
      const spot = Math.exp(ctx.factor(coin));
      const unit = coin === "btc" ? 5_000 : 100;
      const strike = Math.max(unit, Math.round((spot * ctx.rng.between(0.9, 1.1)) / unit) * unit);
      return [
        {
          key: `crypto:${ctx.k}:0`,
          label: `Will ${coin.toUpperCase()} close above $${strike.toLocaleString("en-US")} on ${isoDate(settlementAt)}?`,
          legKey: null,
          eventKey: `crypto-${ctx.k}`,
          theme: "crypto",
          listedAt: ctx.listedAt,
          settlementAt,
          model: { kind: "factor", factor: coin, strike: Math.log(strike) },
          quote: binaryQuote(ctx.rng),
        },
      ];
    },
  },
  {
    theme: "sports",
    cadenceDays: 2,
    listUntilDay: 70,
    preListed: 4,
    make: (ctx) => {
      const settlementAt = settleAfter(ctx, 3, 14);
      const count = ctx.rng.int(1, 2);
      return Array.from({ length: count }, (_, i) => {
        const home = ctx.rng.pick(TEAMS);
        const away = ctx.rng.pick(TEAMS.filter((t) => t !== home));
        return {
          key: `sports:${ctx.k}:${i}`,
          label: `Will the ${home} beat the ${away} on ${isoDate(settlementAt)}?`,
          legKey: null,
          eventKey: `sports-${ctx.k}`,
          theme: "sports",
          listedAt: ctx.listedAt,
          settlementAt,
          model: latentFor(ctx.rng.between(0.25, 0.75), daysBetween(ctx.listedAt, settlementAt), ctx.inv),
          quote: binaryQuote(ctx.rng),
        };
      });
    },
  },
];

/** Listing time of a theme's event k (k < 0: listed before start). */
export function scheduledListing(start: Date, schedule: ThemeSchedule, k: number, jitter: number): Date {
  const days = (k + 0.5) * schedule.cadenceDays + jitter * schedule.cadenceDays * 0.4;
  return new Date(start.getTime() + Math.round((days * MS_PER_DAY) / MS_PER_HOUR) * MS_PER_HOUR);
}

/** The dated strike ladder: BTC above K at a fixed quarter end, new strikes listed as the price moves. */
export const LADDER = {
  eventKey: "btc-qend",
  settleDay: 100,
  initialStrikes: [90_000, 100_000, 110_000],
  newStrikeEveryDays: 12,
  lastNewStrikeDay: 84,
} as const;

export interface PartitionSpec {
  eventKey: string;
  theme: string;
  title: string;
  settleDay: number;
  profile: DemoProfile;
  legs: { legKey: string; label: string }[];
  model: DemoEventModel;
  quote: (rng: Rng) => DemoQuoteParams;
}

const money = (v: number) => `$${(v / 1000).toFixed(0)}k`;
const BTC_EDGES = [70_000, 80_000, 90_000, 100_000, 110_000, 120_000];

export const PARTITIONS: readonly PartitionSpec[] = [
  {
    eventKey: "fed-decision",
    theme: "macro",
    title: "Fed rate decision",
    settleDay: 150,
    profile: "flaggy",
    legs: [
      { legKey: "cut50", label: "Cut 50 bp or more" },
      { legKey: "cut25", label: "Cut 25 bp" },
      { legKey: "hold", label: "No change" },
      { legKey: "hike25", label: "Hike 25 bp or more" },
    ],
    model: { kind: "threshold", factor: "fed", edges: [-37.5, -12.5, 12.5] },
    quote: (rng) => ({
      spreadBase: rng.between(0.01, 0.02),
      depthBase: rng.between(4_000, 20_000),
      darkRate: 0.007,
      darkHours: [2, 2],
    }),
  },
  {
    eventKey: "elections-nominee",
    theme: "elections",
    title: "Party nominee",
    settleDay: 240,
    profile: "clean",
    legs: [
      { legKey: "chen", label: "Avery Chen" },
      { legKey: "malik", label: "Jordan Malik" },
      { legKey: "raman", label: "Priya Raman" },
      { legKey: "ortega", label: "Lucas Ortega" },
      { legKey: "weiss", label: "Hannah Weiss" },
      { legKey: "field", label: "Any other candidate" },
    ],
    model: { kind: "shares", p: [0.34, 0.25, 0.17, 0.12, 0.07, 0.05], kappa: 1.4 },
    quote: (rng) => ({
      spreadBase: rng.between(0.01, 0.02),
      depthBase: rng.between(5_000, 30_000),
      darkRate: 0.0005,
      darkHours: [1, 2],
    }),
  },
  {
    eventKey: "btc-range",
    theme: "crypto",
    title: "BTC price range",
    settleDay: 200,
    profile: "thin",
    legs: [
      { legKey: "lt70k", label: `Below ${money(70_000)}` },
      ...BTC_EDGES.slice(0, -1).map((lo, i) => ({
        legKey: `${lo / 1000}k-${(BTC_EDGES[i + 1] as number) / 1000}k`,
        label: `${money(lo)} to ${money(BTC_EDGES[i + 1] as number)}`,
      })),
      { legKey: "ge120k", label: `${money(120_000)} or more` },
    ],
    model: { kind: "threshold", factor: "btc", edges: BTC_EDGES.map((v) => Math.log(v)) },
    quote: (rng) => ({
      spreadBase: rng.between(0.02, 0.035),
      depthBase: rng.between(550, 1_400),
      darkRate: 0.002,
      darkHours: [1, 3],
    }),
  },
  {
    eventKey: "sports-champion",
    theme: "sports",
    title: "League champion",
    settleDay: 110,
    profile: "clean",
    legs: TEAMS.slice(0, 8).map((team) => ({ legKey: team.toLowerCase().split(" ").pop() as string, label: team })),
    model: { kind: "shares", p: [0.22, 0.18, 0.15, 0.12, 0.11, 0.09, 0.08, 0.05], kappa: 1.3 },
    quote: (rng) => ({
      spreadBase: rng.between(0.01, 0.025),
      depthBase: rng.between(2_000, 12_000),
      darkRate: 0.001,
      darkHours: [1, 2],
    }),
  },
  {
    eventKey: "storm-count",
    theme: "weather",
    title: "Named storms this season",
    settleDay: 300,
    profile: "clean",
    legs: [
      { legKey: "le14", label: "14 or fewer" },
      { legKey: "15-19", label: "15 to 19" },
      { legKey: "ge20", label: "20 or more" },
    ],
    model: { kind: "threshold", factor: "storms", edges: [14.5, 19.5] },
    quote: (rng) => ({
      spreadBase: rng.between(0.01, 0.02),
      depthBase: rng.between(3_000, 15_000),
      darkRate: 0.0005,
      darkHours: [1, 2],
    }),
  },
];

export function partitionLegKey(eventKey: string, legKey: string): string {
  return `${eventKey}:${legKey}`;
}

/** What the demo "venue" says about its partitions: title, legs and settlement, keyed as the catalog compiler looks them up. */
export function demoVenueEvents(
  seed: number,
  start: Date,
): Map<string, { title: string; legs: string[]; settlementDate: string }> {
  return new Map(
    PARTITIONS.map((spec) => [
      `demo:${spec.eventKey}`,
      {
        title: spec.title,
        legs: spec.legs.map((leg) => conditionIdOf(seed, partitionLegKey(spec.eventKey, leg.legKey))),
        settlementDate: isoDate(midnightAfter(start, spec.settleDay)),
      },
    ]),
  );
}
