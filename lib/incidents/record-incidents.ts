import "server-only";
import type { Db } from "@/lib/db";
import type { Root } from "@/lib/root";
import { statusFacts } from "@/lib/data/status";
import type { Prisma } from "@/lib/generated/prisma/client";
import { reconcile, venueRunFailed } from "@/lib/data/incident-rule";
import type { VenueRun } from "@/lib/venues/types";

/** Serializes the recorders of several instances, so a condition gets one incident. */
const INCIDENT_LOCK = 7_318_004;

/**
 * Opens an incident for each condition that holds and has none open, and closes the automatic
 * incidents whose condition ended, with a note saying so. Run after each engine tick and
 * collector run (not on page loads: a GET writes nothing). Returns what changed.
 */
export async function recordIncidents(
  read: Root["read"],
  prisma: Db,
  tickSeconds: number,
  now = new Date(),
): Promise<{ opened: string[]; closed: number }> {
  const { conditions } = await statusFacts(read, tickSeconds, now);
  const result = await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${INCIDENT_LOCK})`;
    const open = await tx.incident.findMany({
      where: { resolvedAt: null, source: "auto" },
      select: { id: true, key: true },
    });
    const change = reconcile(open, conditions);
    for (const c of change.open) {
      await tx.incident.create({
        data: {
          key: c.key,
          source: "auto",
          severity: c.severity,
          subject: c.subject,
          title: c.title,
          openedAt: now,
          notes: { create: { at: now, body: c.detail } },
        },
      });
    }
    for (const id of change.close) {
      await tx.incident.update({
        where: { id },
        data: { resolvedAt: now, notes: { create: { at: now, body: "Recovered: closed automatically." } } },
      });
    }
    return { opened: change.open.map((c) => c.key), closed: change.close.length };
  });
  if (result.opened.length || result.closed) read.cache.clear();
  return result;
}

/** Records each venue's collector run: a run that read nothing and failed marks the venue failing. */
export async function recordVenueRuns(
  tx: Prisma.TransactionClient,
  runs: readonly VenueRun[],
  at: Date,
): Promise<void> {
  for (const run of runs) {
    const failed = venueRunFailed(run);
    const error = run.problems[0]?.split("\n")[0]?.slice(0, 300) ?? null;
    const values = {
      lastRunAt: at,
      failing: failed,
      markets: run.markets,
      stale: run.stale,
      ...(failed ? {} : { lastOkAt: at }),
      ...(error ? { lastError: error, lastErrorAt: at } : {}),
    };
    await tx.venueHealth.upsert({
      where: { venue: run.venue },
      create: { venue: run.venue, ...values },
      update: values,
    });
  }
}
