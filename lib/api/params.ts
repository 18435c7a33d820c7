import { z } from "zod";
import { ApiError, errorMessage } from "@/lib/api/errors";
import { DEFAULT_INTERVAL, HISTORY_MAX_DAYS, INTERVALS, INTERVALS_TEXT, type Interval } from "@/lib/data/window";

export { HISTORY_MAX_DAYS, INTERVALS };

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** ISO 8601 date or timestamp (a `T` or a space, optional seconds and fraction, `Z`, `±HH:MM` or no zone: UTC); null when unparseable. */
export function parseTimestamp(raw: string): Date | null {
  const s = raw.trim();
  if (s.length > 40 || !ISO.test(s)) return null;
  let normalized = s.replace(" ", "T");
  if (/^\d{4}-\d{2}-\d{2}$/.test(normalized)) normalized += "T00:00:00Z";
  else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(normalized)) normalized += "Z";
  normalized = normalized.replace(/(\.\d{3})\d+/, "$1");
  const ms = Date.parse(normalized);
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  // Date.parse rolls 2026-02-31 over to March; refuse dates that do not exist.
  const [y, m, day] = s.slice(0, 10).split("-").map(Number);
  // (setUTCFullYear, not Date.UTC: Date.UTC maps the years 0 to 99 to 1900 to 1999.)
  const check = new Date(0);
  check.setUTCFullYear(y!, m! - 1, day!);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m! - 1 || check.getUTCDate() !== day) return null;
  return d;
}

/**
 * How a query parameter is advertised, declared once on its zod schema (`.meta`): the OpenAPI
 * parameters, the MCP tools' input schemas, the endpoint descriptions and the docs' tables all
 * read it from here (`queryParams`).
 */
export interface ParamMeta {
  /** JSON type of the value as a client sends it. */
  type: "string" | "integer" | "boolean";
  format?: "date-time";
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
  description: string;
  /** The error a bad value gives, when not `invalid_parameter` (the docs' tables say it; not an OpenAPI field). */
  invalid?: "invalid_interval";
}

const TIMESTAMP_RULE = "ISO 8601 date or timestamp; UTC when no zone is given";

const timestamp = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      const d = parseTimestamp(raw);
      if (!d) {
        ctx.addIssue({ code: "custom", message: `${name}: not an ISO 8601 date or timestamp` });
        return z.NEVER;
      }
      return d;
    })
    .meta({
      type: "string",
      format: "date-time",
      description: `${TIMESTAMP_RULE}. ${description}`,
    } satisfies ParamMeta);

const intInRange = (name: string, min: number, max: number, fallback: number, what: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return fallback;
      if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
        ctx.addIssue({ code: "custom", message: `${name}: must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return Number(raw);
    })
    .meta({
      type: "integer",
      minimum: min,
      maximum: max,
      default: fallback,
      description: `${what} (${min} to ${max}, default ${fallback}).`,
    } satisfies ParamMeta);

const bool = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return false;
      if (raw === "true") return true;
      if (raw === "false") return false;
      ctx.addIssue({ code: "custom", message: `${name}: must be true or false` });
      return z.NEVER;
    })
    .meta({ type: "boolean", default: false, description } satisfies ParamMeta);

/** One of `values`, or the default when absent; anything else (the empty value too) is refused with the error code `invalid`. */
const oneOf = <V extends string>(
  name: string,
  values: readonly V[],
  fallback: V,
  description: string,
  invalid: ParamMeta["invalid"],
) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      if ((values as readonly string[]).includes(raw)) return raw as V;
      ctx.addIssue({ code: "custom", message: `${name}: must be ${values.join(" or ")}` });
      return z.NEVER;
    })
    .meta({ type: "string", enum: values, default: fallback, description, invalid } satisfies ParamMeta);

const START_RULE = `Window start; defaults to the start of the trailing ${HISTORY_MAX_DAYS}-day window; an older start is clamped, never rejected.`;

export const indexHistoryQuery = z.object({
  start: timestamp("start", START_RULE),
  end: timestamp("end", "Window end; defaults to now; a future end is clamped to now."),
  interval: oneOf<Interval>(
    "interval",
    INTERVALS,
    DEFAULT_INTERVAL,
    `Point spacing: ${INTERVALS_TEXT} (default ${DEFAULT_INTERVAL}).`,
    "invalid_interval",
  ),
});

export const reconstitutionsQuery = z.object({
  limit: intInRange("limit", 1, 50, 20, "Maximum events to return, newest first"),
});

export const volatilityHistoryQuery = z.object({
  limit: intInRange("limit", 1, 5000, 500, "Maximum points to return, newest first"),
  start: timestamp("start", START_RULE),
  includeGated: bool(
    "includeGated",
    "Also return computations withheld by the publication gates (diagnostic, not published readings).",
  ),
});

export type QuerySchema = z.ZodObject<Record<string, z.ZodType>>;

/** A query schema's parameters as declared, in order. */
export function queryParams(schema: QuerySchema): Array<{ name: string } & ParamMeta> {
  return Object.entries(schema.shape).map(([name, field]) => {
    const meta = field.meta() as ParamMeta | undefined;
    if (!meta) throw new Error(`query parameter ${name} has no ParamMeta`);
    return { name, ...meta };
  });
}

/** "limit 1 to 50, default 20": a parameter's range, for endpoint descriptions. */
export function rangeOf(schema: QuerySchema, name: string): string {
  const p = queryParams(schema).find((q) => q.name === name);
  if (!p || p.minimum === undefined) throw new Error(`no range for ${name}`);
  return `${name} ${p.minimum} to ${p.maximum}, default ${String(p.default)}`;
}

/**
 * Parses the query with a schema; unknown parameters are ignored, and a repeated parameter is read
 * at its first value, whatever the later ones are (DESIGN.md section 2; every parameter of every
 * endpoint, and MCP's arguments, pass here).
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: URLSearchParams | Record<string, unknown>,
): z.output<S> {
  const input: Record<string, string> = {};
  if (query instanceof URLSearchParams) {
    for (const k of query.keys()) if (!(k in input)) input[k] = query.get(k) ?? "";
  } else {
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== null) input[k] = typeof v === "string" ? v : String(v);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const [name, ...reason] = (issue?.message ?? "parameter: invalid").split(": ");
  // A parameter with an error code of its own (interval: invalid_interval) names the value sent.
  const own =
    name && schema instanceof z.ZodObject
      ? ((schema.shape as Record<string, z.ZodType>)[name]?.meta() as ParamMeta | undefined)?.invalid
      : undefined;
  if (own === "invalid_interval")
    throw new ApiError(own, { message: errorMessage(own, { interval: (input[name!] ?? "").slice(0, 40) }) });
  throw new ApiError("invalid_parameter", {
    message: errorMessage("invalid_parameter", {
      name: name ?? String(issue?.path[0] ?? "parameter"),
      reason: reason.join(": ") || "invalid",
    }),
  });
}
