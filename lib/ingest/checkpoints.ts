import { MS_PER_DAY } from "@/lib/engine/time-format";
import type { IndexState } from "@/lib/engine/types";
import type { VolState } from "@/lib/engine/volatility/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { FeedState } from "@/lib/ingest/stored-feed";
import type { EngineStates } from "@/lib/ingest/engine-hour";

type Tx = Prisma.TransactionClient;

/** Restatements reach back this far (the methodology page's look-back). */
export const RESTATEMENT_LOOKBACK_DAYS = 30;
/** Checkpoints are kept a little longer than the look-back, so its first hour has one before it. */
const KEEP_MS = (RESTATEMENT_LOOKBACK_DAYS + 2) * MS_PER_DAY;

/** A checkpoint is taken after every hour at 00:00 UTC within the kept span. */
export function isCheckpointHour(t: Date, lastHour: Date): boolean {
  return t.getTime() % MS_PER_DAY === 0 && lastHour.getTime() - t.getTime() <= KEEP_MS;
}

/** States as JSON text: stringified once, stored as jsonb without a trip through Prisma's JSON values. */
export interface CheckpointRow {
  t: Date;
  demoState: string;
  indexStates: string;
  volStates: string;
}

/** A JSON copy of the states after hour t, taken at once (the demo generator mutates its state in place). */
export function checkpointOf(t: Date, demo: FeedState, states: EngineStates): CheckpointRow {
  return {
    t,
    demoState: JSON.stringify(demo),
    indexStates: JSON.stringify(Object.fromEntries(states.indices)),
    volStates: JSON.stringify(Object.fromEntries(states.series)),
  };
}

export async function writeCheckpoints(tx: Tx, rows: CheckpointRow[], lastHour: Date): Promise<void> {
  if (rows.length) {
    await tx.$executeRawUnsafe(
      `INSERT INTO engine_checkpoints (t, "demoState", "indexStates", "volStates")
       SELECT r.t, r."demoState", r."indexStates", r."volStates" FROM jsonb_to_recordset($1::jsonb) AS r(t timestamptz, "demoState" jsonb, "indexStates" jsonb, "volStates" jsonb)
       ON CONFLICT (t) DO UPDATE SET "demoState" = EXCLUDED."demoState", "indexStates" = EXCLUDED."indexStates", "volStates" = EXCLUDED."volStates", "createdAt" = now()`,
      `[${rows.map((r) => `{"t":${JSON.stringify(r.t.toISOString())},"demoState":${r.demoState},"indexStates":${r.indexStates},"volStates":${r.volStates}}`).join(",")}]`,
    );
  }
  await tx.engineCheckpoint.deleteMany({ where: { t: { lt: new Date(lastHour.getTime() - KEEP_MS) } } });
}

export interface Checkpoint {
  t: Date;
  demo: FeedState;
  states: EngineStates;
}

/** The newest checkpoint strictly before `before`, or null. */
export async function checkpointBefore(tx: Tx, before: Date): Promise<Checkpoint | null> {
  const row = await tx.engineCheckpoint.findFirst({ where: { t: { lt: before } }, orderBy: { t: "desc" } });
  if (!row) return null;
  return {
    t: row.t,
    demo: row.demoState as unknown as FeedState,
    states: {
      indices: new Map(Object.entries(row.indexStates as unknown as Record<string, IndexState | null>)),
      series: new Map(Object.entries(row.volStates as unknown as Record<string, VolState | null>)),
    },
  };
}
