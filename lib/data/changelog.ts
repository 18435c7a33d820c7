import "server-only";
import { iso6 } from "@/lib/time-format";
import type { ReadContext } from "@/lib/data/read-cache";
import { VOL_METHODOLOGY_VERSIONS } from "@/lib/engine/volatility/methodology";
import type { z } from "zod";
import type { changeEntry, changeKind, changelogView as changelogViewShape } from "@/lib/data/status-shapes";

// The changelog's read model: methodology versions in force (when first used), catalog changes
// (launches, cessations, resolutions, retirements) and restatements, newest first, all from the
// database.

const TTL = 10_000;

export type ChangeKind = z.infer<typeof changeKind>;
export type ChangeEntry = z.infer<typeof changeEntry>;
export type ChangelogView = z.infer<typeof changelogViewShape>;

/** Restatements listed one by one; older ones are counted, and all are in the monthly bundles. */
const RESTATEMENTS_SHOWN = 100;

/** An entry launched after its base date: its history before the launch is back-calculated. */
const backCalculated = (r: { inceptionAt: Date; launchAt: Date | null }) =>
  r.launchAt !== null && r.launchAt > r.inceptionAt;

export function changelogView(rc: ReadContext): Promise<ChangelogView> {
  return rc.cache.memo("changelog", TTL, () => loadChangelog(rc));
}

/** Which series a volatility version computed: the public ones by ticker, the unlisted ones counted. */
export function versionUse(listed: string[], unlisted: number): string {
  const named = listed.length ? `${listed.length} public series (${listed.join(", ")})` : "no public series";
  return `Computed with it: ${named}${unlisted ? ` and ${unlisted} unlisted series` : ""}.`;
}

/** What the changelog is made of, read in one go. */
async function readChangelog(rc: ReadContext) {
  const prisma = await rc.db();
  const [indices, series, versions, restatements, restatementTotal] = await Promise.all([
    prisma.index.findMany({
      where: { listed: true },
      select: {
        ticker: true,
        name: true,
        inceptionAt: true,
        launchAt: true,
        ceasedAt: true,
        resolvedAt: true,
        methodologyVersion: true,
      },
    }),
    prisma.volatilitySeries.findMany({
      where: { listed: true },
      select: { ticker: true, slug: true, name: true, inceptionAt: true, launchAt: true, retiredAt: true },
    }),
    // the public (listed) series named, the unlisted ones only counted: their pages answer 404
    prisma.$queryRaw<
      Array<{ kind: string; version: string; firstAt: Date; listed: string[] | null; unlisted: number }>
    >`
      SELECT kind, version, min("computedAt") AS "firstAt",
        array_agg(DISTINCT s.ticker ORDER BY s.ticker) FILTER (WHERE s.listed) AS listed,
        count(DISTINCT v."seriesId") FILTER (WHERE NOT s.listed)::int AS unlisted FROM (
        SELECT 'methodology' AS kind, "methodologyVersion" AS version, "computedAt", "seriesId" FROM volatility_ticks
        UNION ALL SELECT 'clock', "clockVersion", "computedAt", "seriesId" FROM volatility_ticks
        UNION ALL SELECT 'de-vig', "devigVersion", "computedAt", "seriesId" FROM volatility_ticks
      ) v JOIN volatility_series s ON s.id = v."seriesId" GROUP BY kind, version`,
    prisma.restatement.findMany({ orderBy: { restatedAt: "desc" }, take: RESTATEMENTS_SHOWN }),
    prisma.restatement.count(),
  ]);
  return { indices, series, versions, restatements, restatementTotal };
}

type ChangelogRows = Awaited<ReturnType<typeof readChangelog>>;

/** The index methodology's versions, the volatility methodology's versions and the first use of each. */
function methodologyEntries(entries: ChangeEntry[], { indices, versions }: ChangelogRows): void {
  // Index methodology: each version with the indices on it, from the first inception under it.
  const byVersion = new Map<string, { at: Date; tickers: string[] }>();
  for (const i of indices) {
    const v = byVersion.get(i.methodologyVersion) ?? { at: i.inceptionAt, tickers: [] };
    if (i.inceptionAt < v.at) v.at = i.inceptionAt;
    v.tickers.push(i.ticker);
    byVersion.set(i.methodologyVersion, v);
  }
  for (const [version, v] of byVersion) {
    entries.push({
      at: iso6(v.at),
      kind: "methodology",
      subject: "Index methodology",
      title: `Index methodology ${version} in force`,
      detail: `Used by ${v.tickers.sort().join(", ")}.`,
      href: "/docs/methodology",
    });
  }
  // each volatility methodology version from its effective date, with what it changed
  for (const m of VOL_METHODOLOGY_VERSIONS) {
    if (m.effective === null) continue;
    entries.push({
      at: iso6(new Date(`${m.effective}T00:00:00Z`)),
      kind: "methodology",
      subject: "Volatility methodology",
      title: `Volatility methodology ${m.version} effective ${m.effective}`,
      detail: m.summary,
      href: "/docs/methodology/governance#methodology-versions",
    });
  }
  for (const v of versions) {
    entries.push({
      at: iso6(v.firstAt),
      kind: "methodology",
      subject: "Volatility methodology",
      title: `Volatility ${v.kind} version ${v.version} first used`,
      detail: versionUse(v.listed ?? [], v.unlisted),
      href: "/docs/methodology/volatility",
    });
  }
}

/** Each listed index's launch, and its cessation or resolution. */
function indexEntries(entries: ChangeEntry[], { indices }: ChangelogRows): void {
  for (const i of indices) {
    const back = backCalculated(i);
    entries.push({
      at: iso6(back ? i.launchAt! : i.inceptionAt),
      kind: "catalog",
      subject: i.ticker,
      title: `${i.name} launched`,
      detail: back
        ? `Base level 100 at the base date ${iso6(i.inceptionAt)}; the levels before the launch are back-calculated from the venues' price history.`
        : `Base level 100 at inception.`,
      href: `/indices/${i.ticker}`,
    });
    if (i.ceasedAt)
      entries.push({
        at: iso6(i.ceasedAt),
        kind: "catalog",
        subject: i.ticker,
        title: `${i.name} ceased`,
        detail: "No further levels are computed; its history stays available.",
        href: `/indices/${i.ticker}`,
      });
    if (i.resolvedAt)
      entries.push({
        at: iso6(i.resolvedAt),
        kind: "catalog",
        subject: i.ticker,
        title: `${i.name} resolved`,
        detail: "Every constituent settled; the final level is fixed.",
        href: `/indices/${i.ticker}`,
      });
  }
}

/** Each listed volatility series' launch, and its retirement. */
function seriesEntries(entries: ChangeEntry[], { series }: ChangelogRows): void {
  for (const s of series) {
    const back = backCalculated(s);
    entries.push({
      at: iso6(back ? s.launchAt! : s.inceptionAt),
      kind: "catalog",
      subject: s.ticker,
      title: `${s.name} launched`,
      detail: back
        ? `Volatility series listed; its values from the base date ${iso6(s.inceptionAt)} to the launch are back-calculated from the venue's price history.`
        : "Volatility series listed.",
      href: `/volatility/${s.slug}`,
    });
    if (s.retiredAt)
      entries.push({
        at: iso6(s.retiredAt),
        kind: "catalog",
        subject: s.ticker,
        title: `${s.name} retired`,
        detail: "No further values are computed.",
        href: `/volatility/${s.slug}`,
      });
  }
}

/** The latest restatements, each with its previous and new value. */
function restatementEntries(entries: ChangeEntry[], { restatements }: ChangelogRows): void {
  for (const r of restatements) {
    const d = (r.detail ?? {}) as { reason?: string; status?: string; next?: { status?: string } };
    const status =
      d.status && d.next?.status && d.status !== d.next.status ? ` (status ${d.status} → ${d.next.status})` : "";
    entries.push({
      at: iso6(r.restatedAt),
      kind: "restatement",
      subject: r.ticker,
      title: `${r.kind === "volatility" ? "Volatility value" : "Index level"} at ${iso6(r.t)} restated (revision ${r.revision})`,
      detail: `${r.previous} → ${r.value}${status}${d.reason ? `; ${d.reason}` : ""}`,
      href: null,
    });
  }
}

async function loadChangelog(rc: ReadContext): Promise<ChangelogView> {
  const rows = await readChangelog(rc);
  const entries: ChangeEntry[] = [];
  methodologyEntries(entries, rows);
  indexEntries(entries, rows);
  seriesEntries(entries, rows);
  restatementEntries(entries, rows);
  entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.subject.localeCompare(b.subject)));
  return {
    entries,
    counts: {
      methodology: entries.filter((e) => e.kind === "methodology").length,
      catalog: entries.filter((e) => e.kind === "catalog").length,
      restatement: rows.restatementTotal,
    },
  };
}
