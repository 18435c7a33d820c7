/** One tenor's windows of the forecast record, as the chart and its lazily loaded plot take them. */
export interface RecordSeries {
  tenorDays: number;
  points: Array<{ start: string; expectedPts: number; realizedPts: number }>;
}
