import type { z } from "zod";

// Messages an operator can act on, for every problem zod finds in a catalog file. Messages the
// schema states itself (its regexes and refinements) take precedence over these.

/** Fields that accept more than one shape, as an operator would describe them. */
const UNION_FIELDS: Record<string, string> = {
  inceptionAt: 'an ISO 8601 timestamp (e.g. "2026-12-01T00:00:00Z") or "start"',
};

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list (JSON array)",
  object: "an object",
  null: "null",
};

/** The JSON type of a value, as an operator reads it in the file: number, string, array, object, boolean, null. */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const shown = (v: unknown) => JSON.stringify(v) ?? String(v);
const named = (key: PropertyKey | undefined) => (key === undefined ? "this value" : `\`${String(key)}\``);

/** The message for one zod issue; undefined leaves zod's own (never reached for the catalog's schema). */
export function catalogIssueMessage(iss: z.core.$ZodRawIssue): string | undefined {
  const path = iss.path ?? [];
  const field = path[path.length - 1];
  const input = iss.input;
  switch (iss.code) {
    case "unrecognized_keys": {
      const keys = iss.keys.map((k) => `\`${k}\``).join(", ");
      return `unknown field${iss.keys.length > 1 ? "s" : ""} ${keys} (not part of the catalog format; check the spelling against /docs/catalog)`;
    }
    case "invalid_union": {
      // A discriminated union reports at its discriminator (`venue`) with the whole object as input.
      if (iss.discriminator !== undefined) {
        const value =
          typeof input === "object" && input !== null
            ? (input as Record<string, unknown>)[iss.discriminator]
            : undefined;
        const options = (Array.isArray(iss.options) ? (iss.options as unknown[]) : []).map((o) => shown(o)).join(", ");
        if (value === undefined) return `\`${iss.discriminator}\` is required (one of ${options})`;
        return `\`${iss.discriminator}\` must be one of ${options}, got ${shown(value)}`;
      }
      if (input === undefined) return `${named(field)} is required`;
      const expected = typeof field === "string" ? UNION_FIELDS[field] : undefined;
      return `expected ${expected ?? "a different value"}, got ${jsonKind(input)}${typeof input === "string" ? ` ${shown(input)}` : ""}`;
    }
    case "invalid_type":
      if (input === undefined) return `${named(field)} is required`;
      if (iss.expected === "int" && typeof input === "number") return `expected a whole number, got ${input}`;
      return `expected ${EXPECTED[iss.expected] ?? iss.expected}, got ${jsonKind(input)}`;
    case "invalid_value": {
      if (input === undefined) return `${named(field)} is required`;
      const values = iss.values.map((v) => shown(v));
      return values.length === 1
        ? `must be ${values[0]}, got ${shown(input)}`
        : `must be one of ${values.join(", ")}, got ${shown(input)}`;
    }
    case "too_small": {
      const min = Number(iss.minimum);
      if (iss.origin === "string") return min <= 1 ? "must not be empty" : `must be at least ${min} characters long`;
      if (iss.origin === "array") return `must list at least ${min} item${min === 1 ? "" : "s"}`;
      return `must be ${iss.inclusive === false ? "greater than" : "at least"} ${min}, got ${shown(input)}`;
    }
    case "too_big": {
      const max = Number(iss.maximum);
      if (iss.origin === "string")
        return `must be at most ${max} characters long, got ${typeof input === "string" ? input.length : "more"}`;
      if (iss.origin === "array") return `must list at most ${max} item${max === 1 ? "" : "s"}`;
      return `must be ${iss.inclusive === false ? "less than" : "at most"} ${max}, got ${shown(input)}`;
    }
    case "invalid_format":
      return `has the wrong format (expected ${iss.format}), got ${shown(input)}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(iss.divisor)}, got ${shown(input)}`;
    default:
      return undefined;
  }
}
