import { z } from "zod";
import { count, ts, tsNoZ } from "./shapes";

// The shapes of the volatility read models, as the API publishes them: the read models' types are
// inferred from these (lib/data/volatility.ts), and lib/openapi/schemas.ts builds the responses and
// the OpenAPI document from them, so a field is declared once.

/** A tick's status, and whether it is published. */
export const tickStatus = z.enum(["ok", "flagged", "suspended"]);
export const publicationState = z.enum(["published", "withheld"]);

const gates = z.record(z.string(), z.number());
export const seriesDefinition = z
  .object({
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
    settlementDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .nullable(),
    listed: z.boolean(),
    methodologyUrl: z.string().url(),
    relatedIndexTickers: z.array(z.string()),
    gates,
  })
  .strict();

export const shareMeta = z.object({ ci_unavailable: z.boolean(), mixture: z.boolean() });

export const tenorValue = z.object({
  pts: z.number(),
  share: z.number(),
  share_ci: z
    .tuple([z.number(), z.number()])
    .nullable()
    .describe("confidence interval of the share [lo, hi]; null when unavailable"),
  share_meta: shareMeta,
});

export const tenorPoint = z.object({ pts: z.number(), share: z.number() });

export const attributionLeg = z.object({
  delta: z.number(),
  deltaClock: z.number(),
  deltaPrice: z.number(),
  gridOrder: z.number(),
  label: z.string(),
  legKey: z.string(),
});

export const attribution = z.object({
  deltaPts: z.number().nullable(),
  deltaPts2: z.number().nullable(),
  gapSeconds: z.number().nullable(),
  legs: z.array(attributionLeg),
  prevComputedAt: tsNoZ.nullable(),
  reason: z.string().nullable(),
  status: z.string(),
  tenorDays: z.number().int(),
  units: z.string(),
  unitsPts: z.string(),
});

export const gateFlag = z.object({ gate: z.string(), legKey: z.string().nullable(), publicDetail: z.string() });

export const component = z.object({
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
});

export const counterfactual = z.object({
  anchorAt: z.string(),
  anchorFingerprint: z.string(),
  clockVersion: z.string(),
  headlinePts: z.number(),
  rPts: z.number(),
  tenors: z.record(z.string(), tenorPoint),
});

export const composition = z.object({ leg_keys: z.array(z.string()), n: count, version: z.string() });

export const tickLabels = z.object({
  clockHomogeneityDisclosure: z.string(),
  clockSpeed: z.record(z.string(), z.number()),
  attrDeltaFrom: ts.nullable(),
  attrDeltaFromPublished: z.boolean().nullable(),
  composition,
  devigVersion: z.string(),
  tier: z.record(z.string(), z.string()),
});

export const tick = z.object({
  seriesId: z.string(),
  computedAt: tsNoZ,
  headlinePts: z.number(),
  headlineTenorDays: z.number().int(),
  tenors: z.record(z.string(), tenorValue),
  bandLoPts: z.number(),
  bandHiPts: z.number(),
  attrDeltaHeadlinePts: z.number(),
  attribution,
  budgetW: z.number(),
  wTilde: z.number(),
  effectiveN: z.number(),
  sumRaw: z.number(),
  fbvRPts: z.number(),
  fbvRLabel: z.string(),
  status: tickStatus,
  publicationState: publicationState,
  revision: z.number().int(),
  gateFlags: z.array(gateFlag),
  components: z.array(component),
  counterfactual,
  labels: tickLabels,
  clockVersion: z.string(),
  devigVersion: z.string(),
  methodologyVersion: z.string(),
  definitionLine: z.string(),
  targetType: z.string(),
  units: z.string(),
});

export const historyPoint = z
  .object({
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
    publicationState: publicationState,
    revision: z.number().int(),
    status: tickStatus,
    units: z.string(),
  })
  .strict();

export const volatilityCatalogEntry = seriesDefinition.extend({
  lastComputedAt: ts,
  status: tickStatus,
  publicationState: z.literal("published"),
  headlinePts: z.number(),
});
export const volatilityLatest = z
  .object({ series: seriesDefinition, tick, publicationState: publicationState, published: tick.nullable() })
  .strict();
