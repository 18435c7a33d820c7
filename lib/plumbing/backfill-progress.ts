/** How far the start-up catch-up of the engine is, for /healthz and the log. */
export interface BackfillProgress {
  state: "idle" | "running" | "done" | "failed";
  hoursDone: number;
  /** Hours from the first missing hour up to now, when known. */
  hoursTotal: number | null;
  /** The newest computed hour. */
  through: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  error?: string;
}

const progress: BackfillProgress = ((globalThis as { __pmbBackfill?: BackfillProgress }).__pmbBackfill ??= {
  state: "idle",
  hoursDone: 0,
  hoursTotal: null,
  through: null,
  startedAt: null,
  finishedAt: null,
});

/** Where the start-up backfill is (one record per process, shared by the routes and pages). */
export function backfillProgress(): Readonly<BackfillProgress> {
  return progress;
}

/** The record itself, for lib/server/backfill.ts, its only writer. */
export function backfillRecord(): BackfillProgress {
  return progress;
}

/** Whether the backfill is still computing hours the pages would show. */
export function backfillRunning(): boolean {
  return progress.state === "running";
}
