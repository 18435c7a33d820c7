export { DEFAULT_MAX_RETRY_WAIT_SECONDS, PmbClient } from "./client.js";
export type {
  ClientOptions,
  DownloadsPointer,
  IndexCatalog,
  IndexCatalogEntry,
  IndexHistory,
  IndexHistoryMeta,
  IndexLatest,
  IndexLevelPoint,
  Interval,
  Meta,
  Quota,
  ReconstitutionEvent,
  Reconstitutions,
  Result,
  SeriesDefinition,
  ServiceIndex,
  VolatilityCatalog,
  VolatilityHistory,
  VolatilityHistoryMeta,
  VolatilityHistoryPoint,
  VolatilityLatest,
  VolatilityTick,
} from "./client.js";
export * from "./errors.js";
export { parseBody, parseTimestamp, type Parsed } from "./parse.js";
export type { components } from "./openapi.js";
export { Decimal } from "decimal.js";
