import { z } from "zod";

// Response shapes of every /v1 endpoint. The OpenAPI document is generated from these, and the
// contract tests validate live responses with them, so the document cannot drift from the API.

const ts = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/).describe("ISO 8601 UTC, microseconds, Z");
const tsNoZ = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/).describe("UTC with microseconds, no Z");
const level = z.string().regex(/^-?\d+\.\d{8}$/).describe("decimal string, 8 places");

export const commonMeta = z.object({
  attribution: z.string(),
  license: z.string().url(),
  termsUrl: z.string().url(),
  generatedAt: ts,
});

const windowMeta = commonMeta.extend({ effectiveStart: ts, effectiveEnd: ts, clamped: z.boolean(), historyMaxDays: z.literal(90) });
const volWindowMeta = commonMeta.extend({ effectiveStart: ts, clamped: z.boolean(), historyMaxDays: z.literal(90) });

const envelope = <D extends z.ZodType, M extends z.ZodType>(data: D, meta: M) => z.object({ data, meta }).strict();

export const errorResponse = z
  .object({ error: z.object({ code: z.string(), message: z.string(), docsUrl: z.string().url(), requestId: z.string() }).strict() })
  .strict();

const catalogEntry = z.object({
  ticker: z.string(),
  name: z.string(),
  publicStatus: z.enum(["active", "ceased", "resolved"]),
  lastComputedAt: ts.nullable(),
  stale: z.boolean(),
  ceasedAt: ts.nullable(),
  resolvedAt: ts.nullable(),
}).strict();

const latestLevel = z.object({
  ticker: z.string(),
  name: z.string(),
  indexLevel: level,
  baseIndexLevel: z.literal("100.00000000"),
  computedAt: ts,
  inceptionAt: ts,
  ceasedAt: ts.nullable(),
  resolvedAt: ts.nullable(),
  stale: z.boolean(),
  publicStatus: z.enum(["active", "ceased", "resolved"]),
  maturityType: z.enum(["PERPETUAL", "DATED"]),
  methodologyVersion: z.string(),
  compositionVersion: z.string(),
  revision: z.number().int(),
  seriesFullyResolved: z.boolean(),
  seriesPartiallyResolved: z.boolean(),
  dataQuality: z.object({ freshDataPct: z.number(), freshMarketsCount: z.number().int(), staleMarketsCount: z.number().int(), totalMarketsCount: z.number().int() }).strict(),
}).strict();

const levelPoint = z.object({ t: ts, indexLevel: level, revision: z.number().int(), stale: z.boolean() }).strict();
const reconstitution = z.object({ eventId: z.string().uuid(), completedAt: ts, addedMarketCount: z.number().int() }).strict();

const gates = z.record(z.string(), z.number());
const seriesDefinition = z.object({
  ticker: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  productFamily: z.string(),
  targetType: z.string(),
  units: z.literal("probability points"),
  definitionLine: z.string(),
  headlineTenorDays: z.number().int(),
  tenorsDays: z.array(z.number().int()),
  inceptionAt: ts,
  settlementDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable(),
  listed: z.boolean(),
  methodologyUrl: z.string().url(),
  relatedIndexTickers: z.array(z.string()),
  gates,
}).strict();

const tenorValue = z.object({
  pts: z.number(),
  share: z.number(),
  share_ci: z.unknown().nullable(),
  share_meta: z.object({ ci_unavailable: z.boolean(), mixture: z.boolean() }),
});

const tick = z.object({
  seriesId: z.string(),
  computedAt: tsNoZ,
  headlinePts: z.number(),
  headlineTenorDays: z.number().int(),
  tenors: z.record(z.string(), tenorValue),
  bandLoPts: z.number(),
  bandHiPts: z.number(),
  attrDeltaHeadlinePts: z.number(),
  attribution: z.object({
    deltaPts: z.number().nullable(),
    deltaPts2: z.number().nullable(),
    gapSeconds: z.number().nullable(),
    legs: z.array(z.object({ delta: z.number(), deltaClock: z.number(), deltaPrice: z.number(), gridOrder: z.number(), label: z.string(), legKey: z.string() })),
    prevComputedAt: tsNoZ.nullable(),
    reason: z.string().nullable(),
    status: z.string(),
    tenorDays: z.number().int(),
    units: z.string(),
    unitsPts: z.string(),
  }),
  budgetW: z.number(),
  wTilde: z.number(),
  effectiveN: z.number(),
  sumRaw: z.number(),
  fbvRPts: z.number(),
  fbvRLabel: z.string(),
  status: z.enum(["ok", "flagged", "suspended"]),
  publicationState: z.enum(["published", "withheld"]),
  revision: z.number().int(),
  gateFlags: z.array(z.object({ gate: z.string(), legKey: z.string().nullable(), publicDetail: z.string() })),
  components: z.array(
    z.object({
      leg_key: z.string(),
      label: z.string(),
      grid_order: z.number(),
      condition_id: z.string(),
      books_used: z.unknown(),
      days_to_settlement: z.number().nullable(),
      fbv_r_pts: z.number().nullable(),
      gate_flags: z.array(z.unknown()),
      observed_at: tsNoZ.nullable(),
      p: z.number().nullable(),
      passes_depth: z.boolean(),
      tenor_pts: z.record(z.string(), z.number().nullable()),
      w: z.number().nullable(),
    }),
  ),
  counterfactual: z.object({ anchorAt: z.string(), anchorFingerprint: z.string(), clockVersion: z.string(), headlinePts: z.number(), rPts: z.number(), tenors: z.record(z.string(), z.object({ pts: z.number(), share: z.number() })) }),
  labels: z.object({
    clockHomogeneityDisclosure: z.string(),
    clockSpeed: z.record(z.string(), z.number()),
    attrDeltaFrom: ts.nullable(),
    attrDeltaFromPublished: z.boolean().nullable(),
    composition: z.object({ leg_keys: z.array(z.string()), n: z.number().int(), version: z.string() }),
    devigVersion: z.string(),
    tier: z.record(z.string(), z.string()),
  }),
  clockVersion: z.string(),
  devigVersion: z.string(),
  methodologyVersion: z.string(),
  definitionLine: z.string(),
  targetType: z.string(),
  units: z.string(),
});

const historyPoint = z.object({
  t: ts,
  headlinePts: z.number(),
  tenors: z.record(z.string(), tenorValue),
  tier: z.unknown(),
  bandLoPts: z.number(),
  bandHiPts: z.number(),
  attrDeltaHeadlinePts: z.number(),
  attrDeltaFrom: ts.nullable(),
  attrDeltaFromPublished: z.boolean().nullable(),
  clockSpeed: z.record(z.string(), z.number()).nullable(),
  cfHeadlinePts: z.number().nullable(),
  anchorFingerprint: z.string().nullable(),
  clockHomogeneityDisclosure: z.string().nullable(),
  clockVersion: z.string(),
  compositionVersion: z.string(),
  devigVersion: z.string(),
  methodologyVersion: z.string(),
  effectiveN: z.number(),
  fbvRLabel: z.string(),
  fbvRPts: z.number(),
  wTilde: z.number(),
  gateNames: z.array(z.string()),
  publicationState: z.enum(["published", "withheld"]),
  revision: z.number().int(),
  status: z.enum(["ok", "flagged", "suspended"]),
  units: z.string(),
}).strict();

export const responses = {
  service: envelope(
    z.object({
      version: z.literal("v1"),
      docsUrl: z.string().url(),
      endpoints: z.array(z.object({ path: z.string(), description: z.string() })),
      limits: z.object({ requestsPerMinute: z.number().int(), requestsPerDay: z.number().int(), historyMaxDays: z.number().int(), intervals: z.array(z.string()) }),
      key: z.object({ prefix: z.string(), limitMinute: z.number().int(), limitDay: z.number().int(), remainingMinute: z.number().int(), remainingDay: z.number().int() }),
    }),
    commonMeta,
  ),
  indices: envelope(z.object({ count: z.number().int(), indices: z.array(catalogEntry) }), commonMeta),
  indexLatest: envelope(latestLevel, commonMeta),
  indexHistory: envelope(z.object({ ticker: z.string(), interval: z.enum(["1h", "1d"]), count: z.number().int(), points: z.array(levelPoint) }), windowMeta),
  indexReconstitutions: envelope(z.object({ ticker: z.string(), count: z.number().int(), events: z.array(reconstitution) }), commonMeta),
  volatility: envelope(
    z.object({
      count: z.number().int(),
      series: z.array(seriesDefinition.extend({ lastComputedAt: ts, status: z.enum(["ok", "flagged", "suspended"]), publicationState: z.literal("published"), headlinePts: z.number() })),
    }),
    commonMeta,
  ),
  volatilityLatest: envelope(
    z.object({ series: seriesDefinition, tick, publicationState: z.enum(["published", "withheld"]), published: tick.nullable() }).strict(),
    commonMeta,
  ),
  volatilityHistory: envelope(z.object({ count: z.number().int(), points: z.array(historyPoint), series: seriesDefinition, windowStart: ts }).strict(), volWindowMeta),
  downloads: envelope(z.object({ downloadsUrl: z.string().url(), latestManifestUrl: z.string().url(), license: z.string(), notes: z.string() }).strict(), commonMeta),
} as const;
