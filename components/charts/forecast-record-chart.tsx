"use client";

import { lazy, Suspense, useEffect, useRef } from "react";
import { ChartDownloads, toCsv } from "./chart-downloads";
import type { RecordSeries } from "./forecast-record-series";
import { useLoadWhenIdle } from "./use-load-when-idle";

export type { RecordSeries };

/** The chart library's part, fetched after the page is usable. */
const loadPlot = () => import("./forecast-record-plot");
const ForecastRecordPlot = lazy(loadPlot);

/** The forecast record: realized against expected move per window, one colour per tenor. */
export function ForecastRecordChart({
  series,
  label,
  filename,
  testId = "forecast-record-chart",
}: {
  series: RecordSeries[];
  label: string;
  filename: string;
  testId?: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const [wanted, want] = useLoadWhenIdle();
  useEffect(() => {
    void loadPlot();
  }, []);
  const count = series.reduce((n, s) => n + s.points.length, 0);
  const preview = (
    <p className="flex h-full items-center justify-center text-sm text-slate-600" data-testid={`${testId}-preview`}>
      Loading the chart of {count} windows…
    </p>
  );
  return (
    <div onPointerEnter={want} onTouchStart={want} onFocus={want}>
      <div className="mb-2 flex justify-end">
        <ChartDownloads
          filename={filename}
          title={label}
          frame={frame}
          testId={testId}
          csv={() =>
            toCsv(
              ["tenorDays", "windowStart", "expectedPts", "realizedPts"],
              series.flatMap((s) => s.points.map((p) => [s.tenorDays, p.start, p.expectedPts, p.realizedPts])),
            )
          }
        />
      </div>
      <div
        ref={frame}
        className="h-72 w-full min-w-0 overflow-hidden"
        data-testid={`${testId}-frame`}
        data-count={count}
      >
        {wanted ? (
          <Suspense fallback={preview}>
            <ForecastRecordPlot series={series} label={label} testId={testId} />
          </Suspense>
        ) : (
          preview
        )}
      </div>
    </div>
  );
}
