import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "@/lib/api/errors";
import { INTERVALS } from "@/lib/data/window";
import { catalogEntry, count, dataQuality, latestLevel, levelPoint, reconstitution, ts, tsNoZ } from "@/lib/data/shapes";

// Response shapes of every /v1 endpoint. The OpenAPI document is generated from these, and the
// contract tests validate live responses with them, so the document cannot drift from the API.
// Every object that a response carries is a named constant listed in COMPONENT_SCHEMAS, so the
// document names it in components.schemas and generated clients get real types.

export const commonMeta = z.object({
  attribution: z.string(),
  license: z.string().url(),
  termsUrl: z.string().url(),
  generatedAt: ts,
});

const windowMeta = commonMeta.extend({ effectiveStart: ts, effectiveEnd: ts, clamped: z.boolean(), historyMaxDays: z.literal(90) });
const volWindowMeta = commonMeta.extend({ effectiveStart: ts, clamped: z.boolean(), historyMaxDays: z.literal(90) });

const envelope = <D extends z.ZodType, M extends z.ZodType>(data: D, meta: M) => z.object({ data, meta }).strict();

const errorDetail = z
  .object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe("stable contract; clients match on it"),
    message: z.string().describe("human text, may be reworded"),
    docsUrl: z.string().url().describe("deep link to the section for this code"),
    requestId: z.string().describe("equals the X-Request-Id response header"),
  })
  .strict();

export const errorResponse = z.object({ error: errorDetail }).strict();

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

const shareMeta = z.object({ ci_unavailable: z.boolean(), mixture: z.boolean() });

const tenorValue = z.object({
  pts: z.number(),
  share: z.number(),
  share_ci: z.tuple([z.number(), z.number()]).nullable().describe("confidence interval of the share [lo, hi]; null when unavailable"),
  share_meta: shareMeta,
});

const tenorPoint = z.object({ pts: z.number(), share: z.number() });

const attributionLeg = z.object({ delta: z.number(), deltaClock: z.number(), deltaPrice: z.number(), gridOrder: z.number(), label: z.string(), legKey: z.string() });

const attribution = z.object({
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

const gateFlag = z.object({ gate: z.string(), legKey: z.string().nullable(), publicDetail: z.string() });

const component = z.object({
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

const counterfactual = z.object({ anchorAt: z.string(), anchorFingerprint: z.string(), clockVersion: z.string(), headlinePts: z.number(), rPts: z.number(), tenors: z.record(z.string(), tenorPoint) });

const composition = z.object({ leg_keys: z.array(z.string()), n: count, version: z.string() });

const tickLabels = z.object({
  clockHomogeneityDisclosure: z.string(),
  clockSpeed: z.record(z.string(), z.number()),
  attrDeltaFrom: ts.nullable(),
  attrDeltaFromPublished: z.boolean().nullable(),
  composition,
  devigVersion: z.string(),
  tier: z.record(z.string(), z.string()),
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
  attribution,
  budgetW: z.number(),
  wTilde: z.number(),
  effectiveN: z.number(),
  sumRaw: z.number(),
  fbvRPts: z.number(),
  fbvRLabel: z.string(),
  status: z.enum(["ok", "flagged", "suspended"]),
  publicationState: z.enum(["published", "withheld"]),
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

const endpointSummary = z.object({ path: z.string(), description: z.string() });
const serviceLimits = z.object({ requestsPerMinute: count, requestsPerDay: count, historyMaxDays: count, intervals: z.array(z.string()) });
const keyQuota = z.object({ prefix: z.string(), limitMinute: count, limitDay: count, remainingMinute: count, remainingDay: count });
const serviceIndex = z.object({ version: z.literal("v1"), docsUrl: z.string().url(), endpoints: z.array(endpointSummary), limits: serviceLimits, key: keyQuota });
const indexCatalog = z.object({ count, indices: z.array(catalogEntry) });
const indexHistory = z.object({ ticker: z.string(), interval: z.enum(INTERVALS), count, points: z.array(levelPoint) });
const reconstitutions = z.object({ ticker: z.string(), count, events: z.array(reconstitution) });
const volatilityCatalogEntry = seriesDefinition.extend({ lastComputedAt: ts, status: z.enum(["ok", "flagged", "suspended"]), publicationState: z.literal("published"), headlinePts: z.number() });
const volatilityCatalog = z.object({ count, series: z.array(volatilityCatalogEntry) });
const volatilityLatest = z.object({ series: seriesDefinition, tick, publicationState: z.enum(["published", "withheld"]), published: tick.nullable() }).strict();
const volatilityHistory = z.object({ count, points: z.array(historyPoint), series: seriesDefinition, windowStart: ts }).strict();
const downloadsPointer = z.object({ downloadsUrl: z.string().url(), latestManifestUrl: z.string().url(), license: z.string(), notes: z.string() }).strict();

export const responses = {
  service: envelope(serviceIndex, commonMeta),
  indices: envelope(indexCatalog, commonMeta),
  indexLatest: envelope(latestLevel, commonMeta),
  indexHistory: envelope(indexHistory, windowMeta),
  indexReconstitutions: envelope(reconstitutions, commonMeta),
  volatility: envelope(volatilityCatalog, commonMeta),
  volatilityLatest: envelope(volatilityLatest, commonMeta),
  volatilityHistory: envelope(volatilityHistory, volWindowMeta),
  downloads: envelope(downloadsPointer, commonMeta),
} as const;

/** Component names of every response object, as the OpenAPI document lists them. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  Error: errorResponse,
  ErrorDetail: errorDetail,
  Meta: commonMeta,
  IndexHistoryMeta: windowMeta,
  VolatilityHistoryMeta: volWindowMeta,
  ServiceIndex: serviceIndex,
  EndpointSummary: endpointSummary,
  ServiceLimits: serviceLimits,
  KeyQuota: keyQuota,
  IndexCatalog: indexCatalog,
  IndexCatalogEntry: catalogEntry,
  IndexLatest: latestLevel,
  DataQuality: dataQuality,
  IndexHistory: indexHistory,
  IndexLevelPoint: levelPoint,
  Reconstitutions: reconstitutions,
  ReconstitutionEvent: reconstitution,
  VolatilityCatalog: volatilityCatalog,
  VolatilityCatalogEntry: volatilityCatalogEntry,
  SeriesDefinition: seriesDefinition,
  VolatilityLatest: volatilityLatest,
  VolatilityTick: tick,
  TenorValue: tenorValue,
  TenorPoint: tenorPoint,
  ShareMeta: shareMeta,
  Composition: composition,
  Attribution: attribution,
  AttributionLeg: attributionLeg,
  GateFlag: gateFlag,
  TickComponent: component,
  Counterfactual: counterfactual,
  TickLabels: tickLabels,
  VolatilityHistory: volatilityHistory,
  VolatilityHistoryPoint: historyPoint,
  DownloadsPointer: downloadsPointer,
};

/** Component name of each endpoint's success envelope. */
export const RESPONSE_NAMES: Readonly<Record<keyof typeof responses, string>> = {
  service: "ServiceIndexResponse",
  indices: "IndexCatalogResponse",
  indexLatest: "IndexLatestResponse",
  indexHistory: "IndexHistoryResponse",
  indexReconstitutions: "ReconstitutionsResponse",
  volatility: "VolatilityCatalogResponse",
  volatilityLatest: "VolatilityLatestResponse",
  volatilityHistory: "VolatilityHistoryResponse",
  downloads: "DownloadsPointerResponse",
};
