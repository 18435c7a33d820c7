import type { Db } from "@/lib/db";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { buildFinalBundles } from "@/lib/ingest/final-bundles";

/**
 * Builds the closed months' missing bundles from final values (lib/ingest/final-bundles.ts) under
 * the engine's lock, so that of several instances (cluster workers, machines) starting or ticking
 * at once one builds and the others skip: no two compute the same month and race to insert it.
 * Returns the months this call built ([] when another instance holds the lock: it builds them);
 * `waiting` gets the closed months left for a later run. The embedded database has one process: no lock.
 */
export async function buildBundlesOnce(
  prisma: Db,
  embedded: boolean,
  now = new Date(),
  waiting?: Array<{ month: string; notFinalFrom: Date }>,
): Promise<string[]> {
  if (embedded) return buildFinalBundles(prisma, now, waiting);
  return prisma.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<Array<{ ok: boolean }>>`SELECT pg_try_advisory_xact_lock(${ENGINE_LOCK}) AS ok`;
      // Bundle building reads and writes through the transaction that holds the lock.
      return lock?.ok ? buildFinalBundles(tx as unknown as Db, now, waiting) : [];
    },
    { timeout: 1_800_000, maxWait: 60_000 },
  );
}
