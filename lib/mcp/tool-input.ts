import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { queryParams, type QuerySchema } from "@/lib/api/params";

export interface ToolInput {
  /** The tool's input schema, as tools/list publishes it. */
  schema: z.ZodObject<Record<string, z.ZodType>>;
  /** The /v1 query parameters, in the schema's order. */
  queryNames: readonly string[];
}

/**
 * Tool arguments for a /v1 query schema: one optional argument per query parameter, plus the
 * ticker for endpoints with one. Each is advertised with its JSON type and rules, read from the
 * parameter's declaration on the schema (lib/api/params.ts), but accepted as
 * any value: validation is not done here (`toQuery` turns the arguments into the query string /v1
 * would have received and the endpoint parses it with its own schema), so rules, defaults and
 * errors cannot drift, and a bad argument is the API's invalid_parameter, never a protocol error.
 */
export function queryInput(schema: QuerySchema, ticker?: string): ToolInput {
  const params = queryParams(schema);
  const shape: Record<string, z.ZodType> = {};
  for (const { name, format, invalid, ...json } of params) {
    void format; // JSON Schema's date-time is stricter than what the API accepts (a date alone)
    void invalid; // the docs' note of which error a bad value gives, not a JSON Schema keyword
    shape[name] = advertised(json);
  }
  return inputWith(
    shape,
    params.map((p) => p.name),
    ticker,
  );
}

/** A tool with no query parameters: only the ticker, or nothing. */
export function noQueryInput(ticker?: string): ToolInput {
  return inputWith({}, [], ticker);
}

function advertised(jsonSchema: Record<string, unknown>): z.ZodType {
  return z.unknown().optional().meta(jsonSchema);
}

function inputWith(query: Record<string, z.ZodType>, queryNames: string[], ticker: string | undefined): ToolInput {
  if (!ticker) return { schema: z.object(query), queryNames };
  // Listed as required for clients; checked by tickerArgument so a missing one is an API error too.
  const schema = z
    .object({ ticker: advertised({ type: "string", description: ticker }), ...query })
    .meta({ required: ["ticker"] });
  return { schema, queryNames };
}

/** The path parameter. Any string goes through, so an unknown ticker is the API's not_found. */
export function tickerArgument(args: Record<string, unknown>): string {
  if (typeof args.ticker === "string") return args.ticker;
  throw new ApiError("invalid_parameter", {
    message:
      "Invalid argument 'ticker': a ticker string is required; list_indices and list_volatility give the valid values.",
  });
}

/** Tool arguments as the query string /v1 would have received; unknown arguments are ignored, as /v1 ignores them. */
export function toQuery(args: Record<string, unknown>, names: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    const text =
      typeof value === "string"
        ? value
        : typeof value === "number" || typeof value === "boolean"
          ? String(value)
          : JSON.stringify(value);
    query.set(name, text);
  }
  return query;
}
