import "server-only";
import path from "node:path";
import type { Db } from "@/lib/db";
import { clearReadCache } from "@/lib/data/memo";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { IngestError, readSnapshots } from "@/lib/ingest/read-snapshots";
import { NOTHING_RESTATED, restate, type RestateResult } from "@/lib/ingest/restate";

export interface IngestResult {
  file: string;
  rows: number;
  inserted: number;
  revised: number;
  unchanged: number;
  /** what the engine recomputed from the new and corrected snapshots */
  restated: RestateResult;
}

/**
 * Stores one file of snapshots and recomputes what they change, in one transaction under the
 * engine lock. The same file twice changes nothing; a corrected snapshot (same market and time,
 * other values) is stored with revision + 1, and published values it moves beyond the materiality
 * threshold are restated. Unknown markets and time going backwards refuse the whole file.
 */
export async function ingestFile(prisma: Db, file: string, text: string, options: { now?: Date } = {}): Promise<IngestResult> {
  const name = path.basename(file);
  const rows = readSnapshots(name, text);
  const result = await prisma.$transaction(
    async (tx) => {
      // Waits for a tick in progress; the scheduler skips its turn while a file is computed.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ENGINE_LOCK})`;
      const ids = [...new Set(rows.map((r) => r.conditionId))];
      const known = new Set((await tx.market.findMany({ where: { conditionId: { in: ids } }, select: { conditionId: true } })).map((m) => m.conditionId));
      const latest = new Map(
        (
          await tx.marketSnapshot.groupBy({ by: ["conditionId"], where: { conditionId: { in: ids } }, _max: { observedAt: true } })
        ).map((g) => [g.conditionId, g._max.observedAt]),
      );
      const problems: Array<{ file: string; line: number; reason: string }> = [];
      const lastInFile = new Map<string, Date>();
      const existing = new Map(
        (
          await tx.marketSnapshot.findMany({
            where: { OR: rows.map((r) => ({ conditionId: r.conditionId, observedAt: r.observedAt })) },
            select: { conditionId: true, observedAt: true, bestBid: true, bestAsk: true, mid: true, depthUsd: true, resolved: true, outcome: true, revision: true },
          })
        ).map((s) => [`${s.conditionId}|${s.observedAt.toISOString()}`, s]),
      );
      for (const r of rows) {
        if (!known.has(r.conditionId)) problems.push({ file: name, line: r.line, reason: `unknown market ${r.conditionId}` });
        const prev = lastInFile.get(r.conditionId);
        const stored = latest.get(r.conditionId);
        const isCorrection = existing.has(`${r.conditionId}|${r.observedAt.toISOString()}`);
        if ((prev && r.observedAt <= prev) || (!isCorrection && stored && r.observedAt < stored)) {
          problems.push({ file: name, line: r.line, reason: `time goes backwards for ${r.conditionId} at ${r.observedAt.toISOString()}` });
        }
        lastInFile.set(r.conditionId, r.observedAt);
      }
      if (problems.length) throw new IngestError(problems);

      const result: Omit<IngestResult, "restated"> = { file: name, rows: rows.length, inserted: 0, revised: 0, unchanged: 0 };
      let earliest: Date | null = null;
      for (const r of rows) {
        const s = existing.get(`${r.conditionId}|${r.observedAt.toISOString()}`);
        const values = { bestBid: r.bestBid, bestAsk: r.bestAsk, mid: r.mid, depthUsd: r.depthUsd, resolved: r.resolved, outcome: r.outcome };
        if (s && s.bestBid.equals(r.bestBid) && s.bestAsk.equals(r.bestAsk) && s.mid.equals(r.mid) && s.depthUsd.equals(r.depthUsd) && s.resolved === r.resolved && s.outcome === r.outcome) {
          result.unchanged++;
          continue;
        }
        if (!s) {
          await tx.marketSnapshot.create({ data: { conditionId: r.conditionId, observedAt: r.observedAt, ...values, ingested: true } });
          result.inserted++;
        } else {
          await tx.marketSnapshot.update({
            where: { conditionId_observedAt: { conditionId: r.conditionId, observedAt: r.observedAt } },
            data: { ...values, revision: s.revision + 1, ingested: true },
          });
          result.revised++;
        }
        if (earliest === null || r.observedAt < earliest) earliest = r.observedAt;
      }
      const restated = earliest === null ? NOTHING_RESTATED : await restate(tx, earliest, { now: options.now ?? new Date() });
      return { ...result, restated };
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
  if (result.restated.hours > 0) clearReadCache();
  return result;
}
