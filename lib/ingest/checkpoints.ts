import type { IndexState } from "@/lib/engine/types";
import type { VolState } from "@/lib/engine/volatility/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { DemoState } from "@/lib/ingest/demo-market";
import type { EngineStates } from "@/lib/ingest/engine-hour";

type Tx = Prisma.TransactionClient;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Restatements reach back this far (the methodology page's look-back). */
export const RESTATEMENT_LOOKBACK_DAYS = 30;
/** Checkpoints are kept a little longer than the look-back, so its first hour has one before it. */
const KEEP_MS = (RESTATEMENT_LOOKBACK_DAYS + 2) * DAY_MS;

/** A checkpoint is taken after every hour at 00:00 UTC within the kept span. */
export function isCheckpointHour(t: Date, lastHour: Date): boolean {
  return t.getTime() % DAY_MS === 0 && lastHour.getTime() - t.getTime() <= KEEP_MS;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

export interface CheckpointRow {
  t: Date;
  demoState: Prisma.InputJsonValue;
  indexStates: Prisma.InputJsonValue;
  volStates: Prisma.InputJsonValue;
}

/** A JSON copy of the states after hour t (taken at once: the engine mutates nothing it returned, but the demo does). */
export function checkpointOf(t: Date, demo: DemoState, states: EngineStates): CheckpointRow {
  return {
    t,
    demoState: json(demo),
    indexStates: json(Object.fromEntries(states.indices)),
    volStates: json(Object.fromEntries(states.series)),
  };
}

export async function writeCheckpoints(tx: Tx, rows: CheckpointRow[], lastHour: Date): Promise<void> {
  for (const row of rows) await tx.engineCheckpoint.upsert({ where: { t: row.t }, create: row, update: row });
  await tx.engineCheckpoint.deleteMany({ where: { t: { lt: new Date(lastHour.getTime() - KEEP_MS) } } });
}

export interface Checkpoint {
  t: Date;
  demo: DemoState;
  states: EngineStates;
}

/** The newest checkpoint strictly before `before`, or null. */
export async function checkpointBefore(tx: Tx, before: Date): Promise<Checkpoint | null> {
  const row = await tx.engineCheckpoint.findFirst({ where: { t: { lt: before } }, orderBy: { t: "desc" } });
  if (!row) return null;
  return {
    t: row.t,
    demo: row.demoState as unknown as DemoState,
    states: {
      indices: new Map(Object.entries(row.indexStates as unknown as Record<string, IndexState | null>)),
      series: new Map(Object.entries(row.volStates as unknown as Record<string, VolState | null>)),
    },
  };
}

export const nextHour = (t: Date) => new Date(t.getTime() + HOUR_MS);
