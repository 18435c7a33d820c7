/** One tenor of a term-structure chart: its points, and whether it is the series' headline tenor. */
export interface TermPoint {
  tenorDays: number;
  pts: number;
  headline: boolean;
}
