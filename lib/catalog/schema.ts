import { z } from "zod";

// The catalog file: every index and volatility series the service publishes, as data.
// Validated whole; see /docs/catalog for every field and its default.

const ticker = z.string().regex(/^[A-Z0-9][A-Z0-9-]{1,31}$/, "must be 2 to 32 upper-case letters, digits or dashes");
const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be lower-case letters, digits or dashes");
const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(max)
    .refine((s) => !/[\r\n]/.test(s), "must be one line");

/** An ISO 8601 timestamp, or `start`: the first hour the engine computes (the demo's backfill start). */
const inception = z.union([
  z.literal("start"),
  z
    .string()
    .refine(
      (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/.test(s) && !Number.isNaN(Date.parse(s)),
      'must be an ISO 8601 UTC timestamp (…Z) or "start"',
    ),
]);

/** The hour an entry goes live: values before it (from its inceptionAt, the base date) are back-calculated. */
const launch = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:00(:00(\.0+)?)?Z$/.test(s) && !Number.isNaN(Date.parse(s)),
    "must be an ISO 8601 UTC timestamp on the hour (…T10:00:00Z)",
  )
  .nullable()
  .default(null);

const selectorList = (what: string) => z.array(z.string().trim().min(1, `a ${what} must not be empty`)).default([]);

const demoUniverse = z.strictObject({
  venue: z.literal("demo"),
  theme: z.string().min(1),
  /** markets whose event key starts with this (the demo's dated ladder) */
  eventKeyPrefix: z.string().min(1).nullable().default(null),
});
const polymarketUniverse = z
  .strictObject({
    venue: z.literal("polymarket"),
    tagSlugs: selectorList("tag slug"),
    eventSlugs: selectorList("event slug"),
  })
  .refine((u) => u.tagSlugs.length + u.eventSlugs.length > 0, "needs at least one tag slug or event slug");
const kalshiUniverse = z
  .strictObject({
    venue: z.literal("kalshi"),
    seriesTickers: selectorList("series ticker"),
    eventTickers: selectorList("event ticker"),
  })
  .refine(
    (u) => u.seriesTickers.length + u.eventTickers.length > 0,
    "needs at least one series ticker or event ticker",
  );

export const universeSchema = z.discriminatedUnion("venue", [demoUniverse, polymarketUniverse, kalshiUniverse]);

export const eligibilitySchema = z.strictObject({
  minDepthUsd: z.number().min(0).default(0),
  /** largest tolerated bestAsk - bestBid, probability units */
  maxSpread: z.number().gt(0).max(1).default(1),
  minDaysToSettlement: z.number().min(0).default(0),
  maxDaysToSettlement: z.number().gt(0).nullable().default(null),
  /** whether legs of a mutually exclusive event (the volatility family's markets) may enter */
  includePartitionLegs: z.boolean().default(false),
});

export const indexSchema = z.strictObject({
  ticker,
  name: oneLine(120),
  description: oneLine(400),
  inceptionAt: inception,
  launchAt: launch,
  maturityType: z.enum(["PERPETUAL", "DATED"]),
  universe: universeSchema,
  eligibility: eligibilitySchema.default({
    minDepthUsd: 0,
    maxSpread: 1,
    minDaysToSettlement: 0,
    maxDaysToSettlement: null,
    includePartitionLegs: false,
  }),
  stalenessLimitSeconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(7200),
  listed: z.boolean().default(true),
});

export const gatesSchema = z.strictObject({
  arbMinDepthUsd: z.number().min(0),
  arbToleranceMin: z.number().min(0),
  arbToleranceTicks: z.number().min(0),
  depthFloorUsd: z.number().min(0),
  devigTolerance: z.number().min(0),
  identityTolerance: z.number().min(0),
  impactBudgetPts: z.number().gt(0),
  overroundFlagHi: z.number().gt(0),
  overroundFlagLo: z.number().gt(0),
  pythagoreanTolerancePts2: z.number().min(0),
  retireAfterDegradedTicks: z.number().int().min(1),
  snapshotMaxAgeSeconds: z.number().int().min(60),
  snapshotMaxSkewSeconds: z.number().int().min(0),
  spreadToMidMax: z.number().gt(0),
  suspendFailingBudgetShare: z.number().gt(0).max(1),
});

export const seriesSchema = z.strictObject({
  ticker,
  slug,
  name: oneLine(120),
  description: oneLine(400),
  category: slug,
  venue: z.enum(["demo", "polymarket", "kalshi"]),
  /** Polymarket neg-risk event slug, Kalshi mutually exclusive event ticker, or the demo's partition key */
  event: z.string().trim().min(1, "must not be empty"),
  inceptionAt: inception.default("start"),
  launchAt: launch,
  tenorsDays: z.array(z.number().int().min(1).max(3650)).min(1).max(8),
  headlineTenorDays: z.number().int().min(1),
  /** YYYY-MM-DD; default: the venue's settlement date of the event */
  settlementDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
    .nullable()
    .default(null),
  /**
   * `ordered` when the legs, in the event's order, are consecutive intervals of one quantity (rate
   * buckets, price ranges, counts): their variance is priced by the cumulative form. `unordered`
   * (candidates, teams): each leg as its own binary.
   */
  partitionOrder: z.enum(["ordered", "unordered"]).default("unordered"),
  /** tolerances that differ from the documented defaults */
  gates: gatesSchema.partial().default({}),
  relatedIndexTickers: z.array(ticker).default([]),
  listed: z.boolean().default(true),
});

export const catalogSchema = z.strictObject({
  $schema: z.string().optional(),
  /** format version of this file */
  version: z.literal(1),
  indices: z.array(indexSchema),
  volatility: z.array(seriesSchema).default([]),
});

export type Catalog = z.infer<typeof catalogSchema>;
export type CatalogIndex = z.infer<typeof indexSchema>;
export type CatalogSeries = z.infer<typeof seriesSchema>;
export type CatalogUniverse = z.infer<typeof universeSchema>;
export type CatalogEligibility = z.infer<typeof eligibilitySchema>;
export type Venue = CatalogSeries["venue"];
