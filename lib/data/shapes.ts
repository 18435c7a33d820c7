import { z } from "zod";

// The shapes of the index read models, as the API publishes them: the read models' types are
// inferred from these (lib/data/indices.ts), and lib/openapi/schemas.ts builds the responses and
// the OpenAPI document from them, so a field is declared once.

export const ts = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  .describe("ISO 8601 UTC, microseconds, Z");
export const tsNoZ = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)
  .describe("UTC with microseconds, no Z");
/** A count or remaining quota: never negative. */
export const count = z.number().int().min(0);
export const level = z
  .string()
  .regex(/^-?\d+\.\d{8}$/)
  .describe("decimal string, 8 places");

/** An index's public status: computed, ceased (removed from the catalog), or resolved (every market settled). */
export const publicStatus = z.enum(["active", "ceased", "resolved"]);

export const catalogEntry = z
  .object({
    ticker: z.string(),
    name: z.string(),
    publicStatus,
    lastComputedAt: ts.nullable(),
    stale: z.boolean(),
    ceasedAt: ts.nullable(),
    resolvedAt: ts.nullable(),
  })
  .strict();

export const dataQuality = z
  .object({
    freshDataPct: z.number().min(0).max(100),
    freshMarketsCount: count,
    staleMarketsCount: count,
    totalMarketsCount: count,
  })
  .strict();

export const latestLevel = z
  .object({
    ticker: z.string(),
    name: z.string(),
    indexLevel: level,
    baseIndexLevel: z.literal("100.00000000"),
    computedAt: ts,
    inceptionAt: ts,
    ceasedAt: ts.nullable(),
    resolvedAt: ts.nullable(),
    stale: z.boolean(),
    publicStatus,
    maturityType: z.enum(["PERPETUAL", "DATED"]),
    methodologyVersion: z.string(),
    compositionVersion: z.string(),
    revision: z.number().int(),
    seriesFullyResolved: z.boolean(),
    seriesPartiallyResolved: z.boolean(),
    dataQuality,
  })
  .strict();

export const levelPoint = z
  .object({ t: ts, indexLevel: level, revision: z.number().int(), stale: z.boolean() })
  .strict();
export const reconstitution = z
  .object({ eventId: z.string().uuid(), completedAt: ts, addedMarketCount: count })
  .strict();
