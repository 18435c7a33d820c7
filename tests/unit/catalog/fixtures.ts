import { CatalogError, validateCatalog } from "@/lib/catalog/validate";

/** A valid catalog index entry; `over` replaces or adds fields. */
export const index = (over: Record<string, unknown> = {}) => ({
  ticker: "PMX-FED",
  name: "Fed Index",
  description: "Open Fed markets.",
  inceptionAt: "2026-12-01T00:00:00Z",
  maturityType: "PERPETUAL",
  universe: { venue: "polymarket", tagSlugs: ["fed"] },
  ...over,
});

/** A valid catalog volatility series entry; `over` replaces or adds fields. */
export const series = (over: Record<string, unknown> = {}) => ({
  ticker: "PMV-FED",
  slug: "fed",
  name: "Fed Vol",
  description: "Fed decision volatility.",
  category: "macro",
  venue: "polymarket",
  event: "fed-decision-in-december",
  tenorsDays: [7, 30],
  headlineTenorDays: 30,
  ...over,
});

/** The problems validation reports for `c` (a catalog object, or a file's text), none when valid. */
export function problemsOf(c: unknown): Array<{ path: string; reason: string }> {
  try {
    validateCatalog("c.json", typeof c === "string" ? c : JSON.stringify(c));
  } catch (error) {
    if (error instanceof CatalogError) return error.problems;
    throw error;
  }
  return [];
}
