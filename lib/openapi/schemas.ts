import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "@/lib/api/errors";
import { INTERVALS } from "@/lib/data/window";
import { catalogEntry, count, dataQuality, latestLevel, levelPoint, reconstitution, ts } from "@/lib/data/shapes";
import {
  attribution,
  attributionLeg,
  component,
  composition,
  counterfactual,
  gateFlag,
  historyPoint,
  seriesDefinition,
  shareMeta,
  tenorPoint,
  tenorValue,
  tick,
  tickLabels,
  volatilityCatalogEntry,
  volatilityLatest,
} from "@/lib/data/volatility-shapes";

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

const windowMeta = commonMeta.extend({
  effectiveStart: ts,
  effectiveEnd: ts,
  clamped: z.boolean(),
  historyMaxDays: z.literal(90),
});
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

const endpointSummary = z.object({ path: z.string(), description: z.string() });
const serviceLimits = z.object({
  requestsPerMinute: count,
  requestsPerDay: count,
  historyMaxDays: count,
  intervals: z.array(z.string()),
});
const keyQuota = z.object({
  prefix: z.string(),
  limitMinute: count,
  limitDay: count,
  remainingMinute: count,
  remainingDay: count,
});
const serviceIndex = z.object({
  version: z.literal("v1"),
  docsUrl: z.string().url(),
  endpoints: z.array(endpointSummary),
  limits: serviceLimits,
  key: keyQuota,
});
const indexCatalog = z.object({ count, indices: z.array(catalogEntry) });
const indexHistory = z.object({ ticker: z.string(), interval: z.enum(INTERVALS), count, points: z.array(levelPoint) });
const reconstitutions = z.object({ ticker: z.string(), count, events: z.array(reconstitution) });
const volatilityCatalog = z.object({ count, series: z.array(volatilityCatalogEntry) });
const volatilityHistory = z
  .object({ count, points: z.array(historyPoint), series: seriesDefinition, windowStart: ts })
  .strict();
const downloadsPointer = z
  .object({
    downloadsUrl: z.string().url(),
    latestManifestUrl: z.string().url(),
    license: z.string(),
    notes: z.string(),
  })
  .strict();

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
