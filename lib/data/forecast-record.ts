import "server-only";
import { loadRecordPoints } from "@/lib/db/record-points";
import { forecastWindows, summarizeRecord, type RecordSummary } from "@/lib/engine/volatility/forecast-record";
import type { ReadContext } from "@/lib/data/read-cache";

// The forecast record of a series as its page shows it: the same windows as the monthly bundles'
// volatility_forecast_record.csv (lib/engine/volatility/forecast-record.ts), over the whole history.

const TTL = 60_000;
const MS_DAY = 86_400_000;

/** One window shown in the chart: realized against expected, points. */
export interface RecordChartPoint {
  start: string;
  expectedPts: number;
  realizedPts: number;
}

export interface ForecastRecordView {
  ticker: string;
  /** per tenor: the record's figures, and the windows starting at 00:00 UTC for the chart */
  tenors: Array<RecordSummary & { daily: RecordChartPoint[] }>;
  /** newest window end, ISO, or null when no window has closed */
  through: string | null;
}

/** The series' forecast record (listed series), or null when there is no such series. */
export function forecastRecord(rc: ReadContext, ticker: string, now = new Date()): Promise<ForecastRecordView | null> {
  return rc.cache.memo(`vol-record:${ticker}`, TTL, async () => {
    const [series] = await loadRecordPoints(await rc.db(), new Date(0), new Date(now.getTime() + 3_600_000), ticker);
    if (series === undefined) return null;
    const windows = forecastWindows(series.points, series.tenorsDays);
    const summaries = summarizeRecord(windows, series.tenorsDays);
    const through = windows.reduce((m, w) => Math.max(m, w.endMs), Number.NEGATIVE_INFINITY);
    return Object.freeze({
      ticker,
      through: Number.isFinite(through) ? new Date(through).toISOString() : null,
      tenors: summaries.map((s) => ({
        ...s,
        daily: windows
          .filter((w) => w.tenorDays === s.tenorDays && w.startMs % MS_DAY === 0)
          .map((w) => ({
            start: new Date(w.startMs).toISOString(),
            expectedPts: w.expectedPts,
            realizedPts: w.realizedPts,
          })),
      })),
    });
  });
}
