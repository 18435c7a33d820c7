import fs from "node:fs";
import path from "node:path";
import { applyCatalog, type ApplySummary } from "@/lib/catalog/apply-catalog";
import { compileIndex, compileSeries, eventKeyOf, type VenueEvent } from "@/lib/catalog/compile";
import { validateCatalog } from "@/lib/catalog/validate";
import { nextHour } from "@/lib/engine/time-format";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { IndexDefinition } from "@/lib/engine/types";
import type { VolSeriesDefinition } from "@/lib/engine/volatility/types";
import { demoVenueEvents } from "@/lib/ingest/demo-world";

type Tx = Prisma.TransactionClient;

/** The demo's catalog, shipped in the repository. */
export const DEMO_CATALOG_FILE = "catalog/demo.json";

export function readCatalogFile(file: string): { file: string; text: string } {
  return { file, text: fs.readFileSync(path.resolve(process.cwd(), file), "utf8") };
}

/** The indices and series catalog/demo.json declares, as the engine runs them on a demo of this seed and start. */
export function demoCatalogDefinitions(
  seed: number,
  start: Date,
): { indices: IndexDefinition[]; series: VolSeriesDefinition[] } {
  const { file, text } = readCatalogFile(DEMO_CATALOG_FILE);
  const catalog = validateCatalog(path.basename(file), text);
  const ctx = { start, events: demoVenueEvents(seed, start) };
  return {
    indices: catalog.indices.map((ix) => compileIndex(ix, ctx)),
    series: catalog.volatility.map((s) => compileSeries(s, ctx)),
  };
}

/** Events of venue series whose legs the collector has already discovered (stored on the series rows). */
async function storedEvents(tx: Tx): Promise<Map<string, VenueEvent>> {
  const rows = await tx.volatilitySeries.findMany({
    where: { venue: { not: "demo" } },
    select: { venue: true, event: true, legConditionIds: true, settlementDate: true, definitionLine: true },
  });
  return new Map(
    rows
      .filter((r) => r.legConditionIds.length > 0)
      .map((r) => [
        eventKeyOf(r.venue, r.event),
        {
          title: /"(.*)" partition/.exec(r.definitionLine)?.[1] ?? r.event,
          legs: r.legConditionIds,
          settlementDate: r.settlementDate?.toISOString().slice(0, 10) ?? null,
        },
      ]),
  );
}

export interface ApplyOptions {
  demo: boolean;
  seed: number;
  now: Date;
  /** the demo's start when the caller already knows it (the first run of the engine) */
  demoStart?: Date;
}

/**
 * Validates and applies a catalog inside a transaction that holds the engine lock. Changes take
 * effect from the first hour the engine has not computed. Throws CatalogError when refused.
 */
export async function applyCatalogText(
  tx: Tx,
  file: string,
  text: string,
  options: ApplyOptions,
): Promise<ApplySummary> {
  const catalog = validateCatalog(path.basename(file), text);
  const engine = await tx.engineState.findUnique({ where: { id: 1 }, select: { lastTickAt: true, demoState: true } });
  const computedUntil = engine?.lastTickAt ?? null;
  if (options.demo) {
    const start = options.demoStart ?? new Date((engine?.demoState as { start?: string } | null)?.start ?? NaN);
    if (Number.isNaN(start.getTime()))
      throw new Error("the demo market has not started yet: its catalog is applied at its first run");
    const next = computedUntil ? nextHour(computedUntil) : start;
    return applyCatalog(tx, path.basename(file), catalog, {
      start,
      events: demoVenueEvents(options.seed, start),
      nextHour: next,
    });
  }
  const hour = new Date(Math.floor(options.now.getTime() / 3_600_000) * 3_600_000);
  // Nothing published yet: no history can be rewritten, so any inception is accepted.
  const next = computedUntil ? nextHour(computedUntil) : new Date(0);
  return applyCatalog(tx, path.basename(file), catalog, {
    start: computedUntil ? next : hour,
    events: await storedEvents(tx),
    nextHour: next,
    launchHour: hour,
  });
}
