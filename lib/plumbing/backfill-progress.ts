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
  /** The start-up's background work (the catch-up, then back-calculation, incident check, closed months' bundles) has not ended yet. */
  pending: boolean;
}

/** A record of one root (lib/root.ts): lib/server/backfill.ts writes it; /healthz, /status and the pages read it. */
export function createBackfillProgress(): BackfillProgress {
  return {
    state: "idle",
    hoursDone: 0,
    hoursTotal: null,
    through: null,
    startedAt: null,
    finishedAt: null,
    pending: false,
  };
}
