import type { Db } from "@/lib/db";
import type { BackfillProgress } from "@/lib/plumbing/backfill-progress";
import {
  BACKFILL_DAYS,
  catchUp,
  ENGINE_LOCK,
  type CatchUpOptions,
  type CatchUpResult,
} from "@/lib/ingest/engine-runner";
import { applyEngineCorrections, type RestateResult } from "@/lib/ingest/restate";
import { root } from "@/lib/root";

const HOUR_MS = 3_600_000;
/**
 * Each chunk is sized to take about this long. The embedded database has one connection, so a
 * request waits at most about one chunk for it; PostgreSQL serves requests on other connections
 * meanwhile, so there chunks are larger (each chunk reloads the engine's state).
 */
const CHUNK = {
  embedded: { targetMs: 1000, minHours: 48 },
  postgres: { targetMs: 10_000, minHours: 480 },
};
const MAX_CHUNK_HOURS = 24 * 60;
/** How soon a backfill that found another instance computing tries again. */
const LOCKED_RETRY_MS = 500;

/**
 * Runs the engine's catch-up in chunks of about a second of work, each its own transaction, so the
 * server serves pages, the API and /healthz while it runs (the embedded database has one
 * connection: one long transaction would hold it for the whole backfill). Logs progress after
 * each chunk. A failure is recorded in the root progress record (lib/plumbing/backfill-progress.ts) and rethrown.
 */
export async function runBackfill(
  prisma: Db,
  options: Omit<CatchUpOptions, "maxHours">,
  embedded: boolean,
  log: (line: string) => void = console.log,
): Promise<BackfillProgress & Pick<CatchUpResult, "catalog">> {
  const progress = root().progress;
  const sizing = embedded ? CHUNK.embedded : CHUNK.postgres;
  progress.state = "running";
  progress.startedAt = new Date().toISOString();
  progress.hoursDone = 0;
  progress.hoursTotal = null;
  const started = Date.now();
  let lastLogged = 0;
  let chunk = sizing.minHours;
  let applied: CatchUpResult["catalog"];
  let first = true;
  try {
    await correctStoredValues(prisma, log);
    for (;;) {
      const chunkStarted = Date.now();
      // The catalog is brought in force by the first chunk; the others compute on it.
      const r = await catchUp(prisma, { ...options, ...(first ? {} : { catalog: null }), maxHours: chunk });
      if (r.skipped === "locked") {
        // Another instance (a worker beside this one) is computing these hours: this one's
        // backfill is not done until they are (it reports `running`, raises no incident, starts
        // no ticks), so it waits and takes its turn at the next chunk (the catalog
        // is brought in force by its first chunk that runs).
        await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS));
        continue;
      }
      if (first) applied = r.catalog;
      first = false;
      if (r.hours > 0 || (r.catalog && !r.catalog.unchanged)) root().cache.clear();
      const took = Math.max(1, Date.now() - chunkStarted);
      progress.hoursDone += r.hours;
      if (r.lastTickAt) {
        progress.through = r.lastTickAt.toISOString();
        const left = Math.max(0, Math.floor((Date.now() - r.lastTickAt.getTime()) / HOUR_MS));
        progress.hoursTotal = progress.hoursDone + left;
      } else if (progress.hoursTotal === null) {
        progress.hoursTotal = BACKFILL_DAYS * 24;
      }
      if (r.hours < chunk) break;
      chunk = Math.round(Math.min(MAX_CHUNK_HOURS, Math.max(sizing.minHours, (r.hours * sizing.targetMs) / took)));
      if (Date.now() - lastLogged > 2000) {
        lastLogged = Date.now();
        const pct = progress.hoursTotal ? Math.floor((100 * progress.hoursDone) / progress.hoursTotal) : 0;
        log(
          `[engine] backfill: ${progress.hoursDone}/${progress.hoursTotal ?? "?"} hours (${pct}%), through ${progress.through}`,
        );
      }
      // Let requests waiting for the database go first.
      await new Promise((resolve) => setImmediate(resolve));
    }
    progress.state = "done";
    if (progress.hoursDone)
      log(
        `[engine] ${options.demo === false ? "stored snapshots" : "demo market"}: computed ${progress.hoursDone} hour(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
  } catch (error) {
    progress.state = "failed";
    progress.error = (error as Error).message.split("\n")[0]?.slice(0, 200);
    throw error;
  } finally {
    progress.finishedAt = new Date().toISOString();
  }
  return { ...progress, catalog: applied };
}

/**
 * A database computed before an engine correction is recomputed over its stored history and
 * what the correction changes is restated (lib/ingest/corrections.ts), before new hours are computed.
 */
export async function correctStoredValues(
  prisma: Db,
  log: (line: string) => void = console.log,
  now = new Date(),
): Promise<RestateResult | null> {
  const result = await prisma.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRaw<Array<{ ok: boolean }>>`SELECT pg_try_advisory_xact_lock(${ENGINE_LOCK}) AS ok`;
      return lock?.ok ? applyEngineCorrections(tx, now) : null;
    },
    { timeout: 1_800_000, maxWait: 60_000 },
  );
  if (result?.fromHour) {
    root().cache.clear();
    log(
      `[engine] engine correction applied: recomputed ${result.hours} hours from ${result.fromHour.toISOString()}; ${result.ticksRestated} volatility values and ${result.levelsRestated} index levels restated`,
    );
  }
  return result;
}
