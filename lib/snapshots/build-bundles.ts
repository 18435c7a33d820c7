import "server-only";
import { catalogsInForce } from "@/lib/catalog/in-force";
import crypto from "node:crypto";
import { iso6 } from "@/lib/time-format";
import { config } from "@/lib/config";
import type { Db } from "@/lib/db";
import { csv, jsonCell, type MonthFile } from "@/lib/snapshots/bundle-csv";
import { indexFiles } from "@/lib/snapshots/index-files";
import { volatilityFiles } from "@/lib/snapshots/volatility-files";

/**
 * Integer layout version; a change of files or columns increments it (2: price panels,
 * compositions, full-precision links; 3: legs' tenor points, per-leg attribution file,
 * counterfactual and clock increments in the volatility history; 4: `basis` of every value, launches;
 * 5: each series' inception configuration, the counterfactual's inputs; 6: the quotes of inception
 * legs no longer in force, so the counterfactual recomputes after a leg leaves; 7: the forecast
 * record, volatility_forecast_record.csv).
 */
export const SCHEMA_VERSION = 7;

export interface BundleFile {
  name: string;
  bytes: number;
  sha256: string;
  rows: number;
}

export interface MonthManifest {
  month: string;
  schemaVersion: number;
  license: string;
  attribution: string;
  generatedAt: string;
  /** the applied catalogs (rules) in force during the month, by hash */
  catalogs?: Array<{ sha256: string; appliedAt: string }>;
  /** entries with a base date before their launch: values before `launchAt` are back-calculated (schemaVersion 4) */
  launches?: Array<{ ticker: string; kind: "index" | "volatility"; baseDate: string; launchAt: string }>;
  files: BundleFile[];
}

const pad = (n: number) => String(n).padStart(2, "0");
export const monthOf = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
const monthStart = (month: string) => new Date(`${month}-01T00:00:00Z`);
const nextMonth = (month: string) => {
  const d = monthStart(month);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
};

/** The files of one closed month: levels and their price panel, compositions, weights, chain links, volatility and its leg panel, restatements. */
async function monthFiles(prisma: Db, month: string): Promise<MonthFile[]> {
  const from = monthStart(month);
  const to = nextMonth(month);
  return [
    ...(await indexFiles(prisma, from, to)),
    ...(await volatilityFiles(prisma, from, to)),
    ...(await restatementFiles(prisma, from, to)),
  ];
}

/** Corrections made during the month, with the value each one superseded (the restatement policy). */
async function restatementFiles(prisma: Db, from: Date, to: Date): Promise<MonthFile[]> {
  const restatements = await prisma.restatement.findMany({
    where: { restatedAt: { gte: from, lt: to } },
    orderBy: [{ restatedAt: "asc" }, { kind: "asc" }, { ticker: "asc" }, { t: "asc" }],
  });

  return [
    {
      name: "restatements.csv",
      ...csv(
        ["restated_at", "kind", "ticker", "t", "revision", "previous_value", "value", "reason", "detail_json"],
        restatements.map((r) => {
          const { reason, ...detail } = (r.detail ?? {}) as { reason?: string };
          return [
            iso6(r.restatedAt),
            r.kind,
            r.ticker,
            iso6(r.t),
            r.revision,
            r.previous,
            r.value,
            reason ?? "corrected or late market snapshot",
            jsonCell(detail),
          ];
        }),
      ),
    },
  ];
}

/** Entries back-calculated into the month or before it: their base date and launch. */
async function launchesOf(prisma: Db, monthFrom: Date): Promise<NonNullable<MonthManifest["launches"]>> {
  const rows = [
    ...(
      await prisma.index.findMany({
        where: { launchAt: { not: null } },
        select: { ticker: true, inceptionAt: true, launchAt: true },
      })
    ).map((r) => ({ ...r, kind: "index" as const })),
    ...(
      await prisma.volatilitySeries.findMany({
        where: { launchAt: { not: null } },
        select: { ticker: true, inceptionAt: true, launchAt: true },
      })
    ).map((r) => ({ ...r, kind: "volatility" as const })),
  ];
  return rows
    .filter((r) => r.launchAt! > r.inceptionAt && r.inceptionAt < nextMonth(monthOf(monthFrom)))
    .sort((a, b) => (a.ticker < b.ticker ? -1 : 1))
    .map((r) => ({ ticker: r.ticker, kind: r.kind, baseDate: iso6(r.inceptionAt), launchAt: iso6(r.launchAt!) }));
}

/**
 * Builds the bundle of every closed month since inception that has none yet. With `finalUntil`,
 * only the months that end by then (every value of the month final: lib/ingest/final-bundles.ts);
 * the first closed month that does not waits for a later run (named in `waiting`). Returns the months built.
 */
export async function buildMissingBundles(
  prisma: Db,
  now = new Date(),
  options: { finalUntil?: Date; waiting?: string[] } = {},
): Promise<string[]> {
  const first = await prisma.indexLevel.findFirst({ orderBy: { t: "asc" }, select: { t: true } });
  if (!first) return [];
  const current = monthOf(now);
  const existing = new Set((await prisma.snapshotBundle.findMany({ select: { month: true } })).map((b) => b.month));
  const built: string[] = [];
  const c = config();
  for (let m = monthOf(first.t); m < current; m = monthOf(nextMonth(m))) {
    if (existing.has(m)) continue;
    if (options.finalUntil && nextMonth(m) > options.finalUntil) {
      options.waiting?.push(m);
      break;
    }
    const files = await monthFiles(prisma, m);
    const entries: BundleFile[] = files.map((f) => ({
      name: f.name,
      bytes: f.content.length,
      sha256: crypto.createHash("sha256").update(f.content).digest("hex"),
      rows: f.rows,
    }));
    const catalogs = await catalogsInForce(prisma, monthStart(m), nextMonth(m));
    const launches = await launchesOf(prisma, monthStart(m));
    const manifest: MonthManifest = {
      month: m,
      schemaVersion: SCHEMA_VERSION,
      license: c.licenseUrl,
      attribution: c.ATTRIBUTION,
      generatedAt: iso6(new Date()),
      catalogs,
      ...(launches.length ? { launches } : {}),
      files: entries,
    };
    await prisma.snapshotBundle
      .create({
        data: {
          month: m,
          generatedAt: new Date(),
          manifest: JSON.parse(JSON.stringify(manifest)),
          files: {
            create: files.map((f, i) => ({
              name: f.name,
              content: f.content.toString("utf8"),
              sha256: entries[i]!.sha256,
              rows: f.rows,
              bytes: f.content.length,
            })),
          },
        },
      })
      .catch((error: { code?: string }) => {
        // another instance built the same month first: bundles are immutable, keep theirs
        if (error.code !== "P2002") throw error;
      });
    built.push(m);
  }
  return built;
}
