import { catalogIssueMessage } from "./messages";
import {
  catalogSchema,
  indexSchema,
  seriesSchema,
  type Catalog,
  type CatalogIndex,
  type CatalogSeries,
} from "./schema";

/** One problem of a catalog file: where (a JSON path such as `$.indices[2].eligibility.maxSpread`) and why. */
export interface CatalogProblem {
  path: string;
  reason: string;
}

export class CatalogError extends Error {
  readonly kind = "CatalogError" as const;
  constructor(
    readonly file: string,
    readonly problems: CatalogProblem[],
  ) {
    super(
      `${file}: ${problems.length} problem(s), nothing applied\n${problems.map((p) => `  ${p.path}: ${p.reason}`).join("\n")}`,
    );
    this.name = "CatalogError";
  }
}

export function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((k) => (typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(String(k)) ? `.${String(k)}` : `[${JSON.stringify(String(k))}]`)).join("")}`;
}

/** Rules that span entries: unique tickers and slugs, tenors, references, one kind of feed. */
function crossCheck(c: {
  indices: Array<CatalogIndex | null>;
  volatility: Array<CatalogSeries | null>;
}): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const firstSeen = new Map<string, string>();
  const unique = (kind: string, value: string, path: string) => {
    const key = `${kind}:${value.toUpperCase()}`;
    const prior = firstSeen.get(key);
    if (prior !== undefined) problems.push({ path, reason: `duplicate ${kind} ${value} (first at ${prior})` });
    else firstSeen.set(key, path);
  };
  c.indices.forEach((ix, i) => {
    if (ix === null) return;
    unique("ticker", ix.ticker, `$.indices[${i}].ticker`);
    const e = ix.eligibility;
    if (e.maxDaysToSettlement !== null && e.maxDaysToSettlement < e.minDaysToSettlement)
      problems.push({
        path: `$.indices[${i}].eligibility.maxDaysToSettlement`,
        reason: `is below minDaysToSettlement (${e.minDaysToSettlement})`,
      });
  });
  const indexTickers = new Set(c.indices.map((ix) => ix?.ticker));
  c.volatility.forEach((s, i) => {
    if (s === null) return;
    unique("ticker", s.ticker, `$.volatility[${i}].ticker`);
    unique("slug", s.slug, `$.volatility[${i}].slug`);
    if (!s.tenorsDays.includes(s.headlineTenorDays))
      problems.push({
        path: `$.volatility[${i}].headlineTenorDays`,
        reason: `${s.headlineTenorDays} is not one of tenorsDays (${s.tenorsDays.join(", ")})`,
      });
    if (new Set(s.tenorsDays).size !== s.tenorsDays.length)
      problems.push({ path: `$.volatility[${i}].tenorsDays`, reason: "lists a tenor twice" });
    s.relatedIndexTickers.forEach((t, j) => {
      if (!indexTickers.has(t))
        problems.push({
          path: `$.volatility[${i}].relatedIndexTickers[${j}]`,
          reason: `no index ${t} in this catalog`,
        });
    });
    const g = s.gates;
    if (g.overroundFlagLo !== undefined && g.overroundFlagHi !== undefined && g.overroundFlagLo >= g.overroundFlagHi)
      problems.push({ path: `$.volatility[${i}].gates.overroundFlagLo`, reason: "must be below overroundFlagHi" });
  });
  const venues = [
    ...c.indices.flatMap((ix, i) => (ix ? [{ venue: ix.universe.venue, path: `$.indices[${i}].universe.venue` }] : [])),
    ...c.volatility.flatMap((s, i) => (s ? [{ venue: s.venue, path: `$.volatility[${i}].venue` }] : [])),
  ];
  const demo = venues.filter((v) => v.venue === "demo");
  if (demo.length > 0 && demo.length < venues.length) {
    for (const v of venues.filter((x) => x.venue !== "demo"))
      problems.push({
        path: v.path,
        reason: "a catalog is either the demo's (venue demo) or of real venues; it cannot mix both",
      });
  }
  return problems;
}

/** Parses and checks a catalog file; every problem is reported, with its JSON path. */
export function validateCatalog(file: string, text: string): Catalog {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(file, [{ path: "$", reason: `not JSON: ${(error as Error).message}` }]);
  }
  const parsed = catalogSchema.safeParse(raw, { reportInput: true, error: catalogIssueMessage });
  if (!parsed.success) {
    // The rules across entries are still checked on the entries that are valid by themselves.
    const r = (typeof raw === "object" && raw !== null ? raw : {}) as { indices?: unknown; volatility?: unknown };
    const each = <T>(list: unknown, schema: { safeParse: (v: unknown) => { success: boolean; data?: T } }) =>
      Array.isArray(list) ? list.map((v) => schema.safeParse(v).data ?? null) : [];
    const partial = crossCheck({
      indices: each<CatalogIndex>(r.indices, indexSchema),
      volatility: each<CatalogSeries>(r.volatility, seriesSchema),
    });
    throw new CatalogError(file, [
      ...parsed.error.issues.map((i) => ({ path: jsonPath(i.path), reason: i.message })),
      ...partial,
    ]);
  }
  const problems = crossCheck(parsed.data);
  if (problems.length) throw new CatalogError(file, problems);
  return parsed.data;
}
