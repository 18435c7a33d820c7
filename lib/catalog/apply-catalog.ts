import { canonicalJson, type JsonValue } from "@/lib/engine/canonical-json";
import type { Prisma } from "@/lib/generated/prisma/client";
import {
  bumpVersion,
  catalogHash,
  upgradeVolVersion,
  compileIndex,
  compileSeries,
  INDEX_METHODOLOGY_BASE,
  VOL_METHODOLOGY_BASE,
  type CompileContext,
} from "./compile";
import type { Catalog } from "./schema";
import { CatalogError, type CatalogProblem } from "./validate";

type Tx = Prisma.TransactionClient;

export interface ApplySummary {
  sha256: string;
  unchanged: boolean;
  created: string[];
  updated: string[];
  ceased: string[];
  /** tickers whose methodologyVersion moved, with the new version */
  bumped: Record<string, string>;
}

export interface ApplyContext extends CompileContext {
  /** the first hour the engine has not computed yet: changes take effect from it */
  nextHour: Date;
  /** venue catalogs: the current hour, the launch of a new entry that states none (absent for the demo: no back-calculation) */
  launchHour?: Date;
}

/**
 * A new venue entry may start before the next hour to compute: its inceptionAt is then its base
 * date and the hours up to its launch are back-calculated from the venue's price history (no
 * published value is rewritten: the entry has none). The launch is the catalog's `launchAt`, or
 * the hour the entry is first applied.
 */
function launchOf(inceptionAt: Date, stated: string | null, ctx: ApplyContext): Date | null {
  if (!ctx.launchHour) return null;
  if (stated !== null) return new Date(stated);
  return new Date(Math.max(inceptionAt.getTime(), ctx.launchHour.getTime(), ctx.nextHour.getTime()));
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;
const same = (a: unknown, b: unknown) =>
  canonicalJson(JSON.parse(JSON.stringify(a ?? null)) as JsonValue) ===
  canonicalJson(JSON.parse(JSON.stringify(b ?? null)) as JsonValue);

/** The catalog applied last, or null. */
export async function currentCatalog(
  tx: Tx | { catalogVersion: Tx["catalogVersion"] },
): Promise<{ sha256: string; appliedAt: Date } | null> {
  return tx.catalogVersion.findFirst({ orderBy: { id: "desc" }, select: { sha256: true, appliedAt: true } });
}

/**
 * Applies a validated catalog inside the caller's transaction (which holds the engine lock).
 * Published history is never rewritten: a new entry starts at its inception (not before the next
 * hour to compute), a changed rule bumps methodologyVersion and takes effect from the next hour
 * (for an index: at its next reconstitution), a removed entry ceases. Any refusal applies nothing.
 */
export async function applyCatalog(tx: Tx, file: string, catalog: Catalog, ctx: ApplyContext): Promise<ApplySummary> {
  const sha256 = catalogHash(catalog);
  const summary: ApplySummary = { sha256, unchanged: false, created: [], updated: [], ceased: [], bumped: {} };
  await upgradeMethodology(tx, summary);
  const last = await currentCatalog(tx);
  if (last?.sha256 === sha256) return { ...summary, unchanged: Object.keys(summary.bumped).length === 0 };

  const indexRows = new Map((await tx.index.findMany()).map((r) => [r.ticker, r]));
  const seriesRows = new Map(
    (await tx.volatilitySeries.findMany({ omit: { engineState: true, inceptionConfig: true } })).map((r) => [
      r.ticker,
      r,
    ]),
  );
  const problems = catalogProblems(catalog, indexRows, seriesRows, ctx);
  if (problems.length) throw new CatalogError(file, problems);
  await applyIndices(tx, catalog, indexRows, ctx, summary);
  await applySeries(tx, catalog, seriesRows, ctx, summary);
  await tx.catalogVersion.create({ data: { sha256, content: json(catalog), summary: json({ file, ...summary }) } });
  return summary;
}

type IndexRows = Map<string, Awaited<ReturnType<Tx["index"]["findMany"]>>[number]>;
type SeriesRows = Map<
  string,
  Omit<Awaited<ReturnType<Tx["volatilitySeries"]["findMany"]>>[number], "engineState" | "inceptionConfig">
>;

/** The first hour a "start" entry may begin at: the context's start, not before the next hour to compute. */
const startOfIn = (ctx: ApplyContext) => (value: string) =>
  value === "start" ? new Date(Math.max(ctx.start.getTime(), ctx.nextHour.getTime())) : new Date(value);

/** What the catalog would change that it may not: fixed fields of existing entries, ceased tickers, taken slugs, new entries' dates. */
function catalogProblems(
  catalog: Catalog,
  indexRows: IndexRows,
  seriesRows: SeriesRows,
  ctx: ApplyContext,
): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  catalog.indices.forEach((ix, i) => {
    const row = indexRows.get(ix.ticker);
    const at = (field: string) => `$.indices[${i}].${field}`;
    if (!row) {
      newEntryProblems(ix.inceptionAt, ix.launchAt, ix.universe.venue, ctx, at).forEach((p) => problems.push(p));
      return;
    }
    if (ix.launchAt !== null && row.launchAt !== null && new Date(ix.launchAt).getTime() !== row.launchAt.getTime())
      problems.push({
        path: at("launchAt"),
        reason: `cannot change after inception (stored ${row.launchAt.toISOString()})`,
      });
    if (row.removedAt || row.ceasedAt)
      problems.push({
        path: at("ticker"),
        reason: `${ix.ticker} ceased at ${(row.removedAt ?? row.ceasedAt)!.toISOString()}; a ceased index does not come back (use a new ticker)`,
      });
    if (ix.inceptionAt !== "start" && new Date(ix.inceptionAt).getTime() !== row.inceptionAt.getTime())
      problems.push({
        path: at("inceptionAt"),
        reason: `cannot change after inception (stored ${row.inceptionAt.toISOString()})`,
      });
    if (ix.maturityType !== row.maturityType)
      problems.push({ path: at("maturityType"), reason: `cannot change after inception (stored ${row.maturityType})` });
    const stored = row.universe as { venue?: string } | null;
    if (stored?.venue !== undefined && stored.venue !== ix.universe.venue)
      problems.push({ path: at("universe.venue"), reason: `cannot change after inception (stored ${stored.venue})` });
  });
  const slugOwners = new Map([...seriesRows.values()].map((r) => [r.slug, r.ticker]));
  catalog.volatility.forEach((s, i) => {
    const row = seriesRows.get(s.ticker);
    const at = (field: string) => `$.volatility[${i}].${field}`;
    const owner = slugOwners.get(s.slug);
    if (owner !== undefined && owner !== s.ticker)
      problems.push({ path: at("slug"), reason: `is the slug of ${owner}` });
    if (!row) {
      newEntryProblems(s.inceptionAt, s.launchAt, s.venue, ctx, at).forEach((p) => problems.push(p));
      return;
    }
    if (s.launchAt !== null && row.launchAt !== null && new Date(s.launchAt).getTime() !== row.launchAt.getTime())
      problems.push({
        path: at("launchAt"),
        reason: `cannot change after inception (stored ${row.launchAt.toISOString()})`,
      });
    if (row.ceasedAt)
      problems.push({
        path: at("ticker"),
        reason: `${s.ticker} ceased at ${row.ceasedAt.toISOString()}; a ceased series does not come back (use a new ticker)`,
      });
    if (row.venue !== s.venue || (row.event !== "" && row.event !== s.event))
      problems.push({
        path: at("event"),
        reason: `the legs of a series are fixed at inception (stored ${row.venue} ${row.event || "(demo)"}); use a new ticker`,
      });
  });
  return problems;
}

/** Creates, updates (a rule change bumps methodologyVersion) and ceases the indices. */
async function applyIndices(
  tx: Tx,
  catalog: Catalog,
  indexRows: IndexRows,
  ctx: ApplyContext,
  summary: ApplySummary,
): Promise<void> {
  const notBefore = ctx.nextHour;
  const startOf = startOfIn(ctx);
  for (const ix of catalog.indices) {
    const row = indexRows.get(ix.ticker);
    const def = compileIndex(ix, ctx, row?.methodologyVersion ?? INDEX_METHODOLOGY_BASE);
    const universe = json(ix.universe);
    if (!row) {
      const inceptionAt = indexRows.size === 0 && ix.inceptionAt === "start" ? ctx.start : startOf(ix.inceptionAt);
      await tx.index.create({
        data: {
          ticker: def.ticker,
          name: def.name,
          description: def.description,
          theme: def.theme,
          inceptionAt,
          launchAt: launchOf(inceptionAt, ix.launchAt, ctx),
          maturityType: def.maturityType,
          methodologyVersion: def.methodologyVersion,
          stalenessLimitSeconds: def.stalenessLimitSeconds,
          listed: def.listed,
          eligibility: json(def.eligibility),
          universe,
        },
      });
      summary.created.push(ix.ticker);
      continue;
    }
    // A rule change is a methodology change; the first catalog over a pre-catalog row only records the rule.
    const ruleChanged =
      row.eligibility !== null &&
      (!same(row.eligibility, def.eligibility) || row.stalenessLimitSeconds !== def.stalenessLimitSeconds);
    const methodologyVersion = ruleChanged ? bumpVersion(row.methodologyVersion) : row.methodologyVersion;
    if (ruleChanged) summary.bumped[ix.ticker] = methodologyVersion;
    const changed =
      ruleChanged ||
      row.eligibility === null ||
      row.name !== def.name ||
      row.description !== def.description ||
      row.listed !== def.listed ||
      !same(row.universe, ix.universe);
    if (!changed) continue;
    await tx.index.update({
      where: { ticker: ix.ticker },
      data: {
        name: def.name,
        description: def.description,
        listed: def.listed,
        eligibility: json(def.eligibility),
        universe,
        methodologyVersion,
        stalenessLimitSeconds: def.stalenessLimitSeconds,
        theme: def.theme,
      },
    });
    summary.updated.push(ix.ticker);
  }
  const inFile = new Set(catalog.indices.map((ix) => ix.ticker));
  for (const row of indexRows.values()) {
    if (inFile.has(row.ticker) || row.removedAt || row.ceasedAt) continue;
    await tx.index.update({ where: { ticker: row.ticker }, data: { removedAt: notBefore, ceasedAt: notBefore } });
    summary.ceased.push(row.ticker);
  }
}

/** Creates, updates (a rule change bumps methodologyVersion) and ceases the volatility series. */
async function applySeries(
  tx: Tx,
  catalog: Catalog,
  seriesRows: SeriesRows,
  ctx: ApplyContext,
  summary: ApplySummary,
): Promise<void> {
  const notBefore = ctx.nextHour;
  const startOf = startOfIn(ctx);
  for (const s of catalog.volatility) {
    const row = seriesRows.get(s.ticker);
    const def = compileSeries(s, ctx, row?.methodologyVersion ?? VOL_METHODOLOGY_BASE);
    const data = {
      slug: def.slug,
      name: def.name,
      description: def.description,
      category: def.category,
      headlineTenorDays: def.headlineTenorDays,
      tenorsDays: def.tenorsDays,
      listed: def.listed,
      relatedIndexTickers: def.relatedIndexTickers,
      gates: json(def.gates),
      partitionOrder: def.partitionOrder ?? "unordered",
    };
    if (!row) {
      const inceptionAt = seriesRows.size === 0 && s.inceptionAt === "start" ? ctx.start : startOf(s.inceptionAt);
      await tx.volatilitySeries.create({
        data: {
          ...data,
          ticker: def.ticker,
          productFamily: def.productFamily,
          targetType: def.targetType,
          units: def.units,
          definitionLine: def.definitionLine,
          inceptionAt,
          launchAt: launchOf(inceptionAt, s.launchAt, ctx),
          settlementDate: def.settlementDate ? new Date(`${def.settlementDate}T00:00:00Z`) : null,
          methodologyUrl: def.methodologyUrl,
          inceptionConfig: {},
          legConditionIds: def.legs,
          methodologyVersion: def.methodologyVersion,
          venue: s.venue,
          event: s.event,
        },
      });
      summary.created.push(s.ticker);
      continue;
    }
    const ruleChanged =
      !same(row.gates, def.gates) ||
      !same(row.tenorsDays, def.tenorsDays) ||
      row.headlineTenorDays !== def.headlineTenorDays ||
      row.partitionOrder !== data.partitionOrder;
    // a series on an earlier methodology moves to the engine's from the next hour (the change policy's material change)
    const upgraded = upgradeVolVersion(row.methodologyVersion);
    const methodologyVersion = ruleChanged ? bumpVersion(upgraded) : upgraded;
    if (methodologyVersion !== row.methodologyVersion) summary.bumped[s.ticker] = methodologyVersion;
    const changed =
      ruleChanged ||
      methodologyVersion !== row.methodologyVersion ||
      row.event === "" ||
      row.slug !== data.slug ||
      row.name !== data.name ||
      row.description !== data.description ||
      row.category !== data.category ||
      row.listed !== data.listed ||
      !same(row.relatedIndexTickers, data.relatedIndexTickers);
    if (!changed) continue;
    await tx.volatilitySeries.update({
      where: { ticker: s.ticker },
      data: { ...data, methodologyVersion, event: s.event },
    });
    summary.updated.push(s.ticker);
  }
  const seriesInFile = new Set(catalog.volatility.map((s) => s.ticker));
  for (const row of seriesRows.values()) {
    if (seriesInFile.has(row.ticker) || row.ceasedAt) continue;
    await tx.volatilitySeries.update({ where: { ticker: row.ticker }, data: { ceasedAt: notBefore } });
    summary.ceased.push(row.ticker);
  }
}

/**
 * Series on an earlier volatility methodology than the engine's move to it from the next hour to
 * compute, whether or not the catalog file changed (the change policy's material change: the
 * engine computes every new hour under its own methodology, so the label follows it).
 */
async function upgradeMethodology(tx: Tx, summary: ApplySummary): Promise<void> {
  const rows = await tx.volatilitySeries.findMany({
    where: { ceasedAt: null },
    select: { ticker: true, methodologyVersion: true },
  });
  for (const r of rows) {
    const version = upgradeVolVersion(r.methodologyVersion);
    if (version === r.methodologyVersion) continue;
    await tx.volatilitySeries.update({ where: { ticker: r.ticker }, data: { methodologyVersion: version } });
    summary.bumped[r.ticker] = version;
  }
}

/** A new entry's dates: a base date in the past needs a venue's history; the launch lies between the base date and the next hour to compute. */
function newEntryProblems(
  inceptionAt: string,
  launchAt: string | null,
  venue: string,
  ctx: ApplyContext,
  at: (field: string) => string,
): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const base = inceptionAt === "start" ? null : new Date(inceptionAt);
  if (base && base < ctx.nextHour && (venue === "demo" || !ctx.launchHour))
    problems.push({
      path: at("inceptionAt"),
      reason: `is before the next hour to compute (${ctx.nextHour.toISOString()}): published history is never rewritten`,
    });
  if (launchAt !== null) {
    const launch = new Date(launchAt);
    if (venue === "demo" || !ctx.launchHour)
      problems.push({
        path: at("launchAt"),
        reason: "applies to venue entries only (back-calculation reads the venue's price history)",
      });
    else if (base && launch < base)
      problems.push({ path: at("launchAt"), reason: `is before inceptionAt (the base date, ${base.toISOString()})` });
    else if (launch < ctx.nextHour)
      problems.push({
        path: at("launchAt"),
        reason: `is before the next hour to compute (${ctx.nextHour.toISOString()}): an entry goes live from a computed hour on`,
      });
  }
  return problems;
}

export function describeApply(s: ApplySummary): string {
  if (s.unchanged) return `catalog ${s.sha256.slice(0, 12)} is already in force: nothing changed\n`;
  const lines = [`applied catalog ${s.sha256.slice(0, 12)}`];
  if (s.created.length) lines.push(`  new: ${s.created.join(", ")}`);
  if (s.updated.length) lines.push(`  updated: ${s.updated.join(", ")}`);
  for (const [t, v] of Object.entries(s.bumped))
    lines.push(
      `  ${t}: methodologyVersion ${v} (rules changed; in force from the next hour, for an index at its next reconstitution)`,
    );
  if (s.ceased.length) lines.push(`  ceased (removed from the catalog): ${s.ceased.join(", ")}`);
  return `${lines.join("\n")}\n`;
}
