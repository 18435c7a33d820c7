import { Decimal } from "decimal.js";

/** Fields that carry a timestamp; three of them come without `Z` and are UTC all the same. */
export const TIMESTAMP_FIELDS = [
  "t",
  "computedAt",
  "lastComputedAt",
  "inceptionAt",
  "ceasedAt",
  "resolvedAt",
  "completedAt",
  "generatedAt",
  "effectiveStart",
  "effectiveEnd",
  "windowStart",
  "prevComputedAt",
  "observed_at",
  "anchorAt",
  "attrDeltaFrom",
] as const;
/** Fields that carry an index level as a decimal string. */
export const DECIMAL_FIELDS = ["indexLevel", "baseIndexLevel"] as const;

type TimestampField = (typeof TIMESTAMP_FIELDS)[number];
type DecimalField = (typeof DECIMAL_FIELDS)[number];

/** A wire type with its levels as Decimal and its timestamps as Date. */
export type Parsed<T> = T extends readonly (infer U)[]
  ? Parsed<U>[]
  : T extends object
    ? {
        [K in keyof T]: K extends DecimalField
          ? Decimal | Extract<T[K], null>
          : K extends TimestampField
            ? Date | Extract<T[K], null>
            : Parsed<T[K]>;
      }
    : T;

const TIMESTAMPS = new Set<string>(TIMESTAMP_FIELDS);
const DECIMALS = new Set<string>(DECIMAL_FIELDS);
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An API timestamp as a Date in UTC. `tick.computedAt`, `attribution.prevComputedAt` and
 * `components[].observed_at` are UTC written without `Z`: a zone is attached, never guessed
 * from the local clock. Microseconds beyond the millisecond are dropped (Date holds ms).
 */
export function parseTimestamp(value: string): Date {
  const text = (HAS_ZONE.test(value) ? value : `${value}Z`).replace(/(\.\d{3})\d+/, "$1");
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new TypeError(`not an ISO 8601 timestamp: ${value}`);
  return date;
}

/** Converts a decoded JSON body: levels to Decimal, timestamps to Date, all else unchanged. */
export function parseBody<T>(value: T): Parsed<T> {
  return convert(value, "") as Parsed<T>;
}

function convert(value: unknown, key: string): unknown {
  if (typeof value === "string") {
    if (DECIMALS.has(key)) return new Decimal(value);
    if (TIMESTAMPS.has(key)) return parseTimestamp(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => convert(v, key));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, k)]));
  }
  return value;
}
