// Canonical JSON: object keys sorted, no whitespace, Dates as ISO strings; equal data gives equal text.

export type JsonValue =
  string | number | boolean | null | Date | readonly JsonValue[] | { readonly [key: string]: JsonValue | undefined };

export function canonicalJson(value: JsonValue): string {
  if (value === null) return "null";
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((v: JsonValue) => canonicalJson(v)).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .flatMap((key) => {
        const v = (value as { readonly [key: string]: JsonValue | undefined })[key];
        return v === undefined ? [] : [`${JSON.stringify(key)}:${canonicalJson(v)}`];
      });
    return `{${entries.join(",")}}`;
  }
  if (typeof value === "number" && !Number.isFinite(value))
    throw new TypeError("canonical JSON has no encoding for non-finite numbers");
  return JSON.stringify(value);
}
