// The volatility methodology versions, with the date each took effect (the changelog lists them).

export interface MethodologyVersion {
  version: string;
  /** YYYY-MM-DD (UTC): hours computed from this day on are computed under it (null: the first version) */
  effective: string | null;
  summary: string;
}

export const VOL_METHODOLOGY_VERSIONS: readonly MethodologyVersion[] = [
  {
    version: "vol-1.0",
    effective: null,
    summary: "Each leg priced as its own binary on the diffusion; the calendar clock at speed 1.",
  },
  {
    version: "vol-2.0",
    effective: "2026-11-28",
    summary:
      "Ordered partitions (declared in the catalog) priced by the cumulative form; unordered ones as before. The calendar clock runs at a prior speed pooled from history instead of 1. Legs below the one-tick floor (de-vigged p < 0.005) count as 0 in every variance. Demo history recomputed under it.",
  },
];

/** The version the engine computes under. */
export const VOL_METHODOLOGY = VOL_METHODOLOGY_VERSIONS[VOL_METHODOLOGY_VERSIONS.length - 1] as MethodologyVersion;
