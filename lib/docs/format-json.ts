/**
 * Pretty JSON for examples: two-space indentation like JSON.stringify, but any array or object
 * whose one-line form fits within `width` stays on one line, so examples stay short to read.
 */
export function formatJson(value: unknown, width = 80): string {
  return render(value, 0, width);
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value) ?? "null";
}

/** `lead` is what precedes the value on its first line (its key), counted against the width. */
function render(value: unknown, indent: number, width: number, lead = 0): string {
  const one = inline(value);
  if (value === null || typeof value !== "object" || indent + lead + one.length <= width) return one;
  const pad = " ".repeat(indent + 2);
  const close = " ".repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => pad + render(v, indent + 2, width)).join(",\n")}\n${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return pad + key + render(v, indent + 2, width, key.length);
  });
  return `{\n${lines.join(",\n")}\n${close}}`;
}
