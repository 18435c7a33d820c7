/**
 * Corrections of the engine's own arithmetic that restore the documented methodology (the change
 * policy's non-material changes: no methodologyVersion moves). A database whose values were
 * computed before a correction is recomputed over its whole stored history at start, and every
 * published value the correction changes is restated (revision + 1, superseded value kept, a
 * restatement record with the correction as its reason, listed in the changelog and the month's
 * bundle). A new database computes right from the start. Append only.
 */
export const ENGINE_CORRECTIONS = [
  {
    number: 1,
    reason: "gates decided in exact decimal arithmetic (a sum equal to a tolerance no longer crosses it)",
  },
] as const;

/** The number of corrections a database computed by this engine reflects (engine_state.corrections). */
export const CURRENT_CORRECTIONS = ENGINE_CORRECTIONS.length;
