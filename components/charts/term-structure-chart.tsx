"use client";

import { lazy, Suspense, useEffect, useRef } from "react";
import { ChartDownloads, toCsv } from "./chart-downloads";
import type { TermPoint } from "./term-point";
import { useLoadWhenIdle } from "./use-load-when-idle";

/** The chart library's part, fetched after the page is usable. */
const loadTermStructurePlot = () => import("./term-structure-plot");
const TermStructurePlot = lazy(loadTermStructurePlot);

/** Plain bars in the HTML, shown until the interactive chart has loaded. */
function TermPreview({ tenors, testId }: { tenors: TermPoint[]; testId: string }) {
  const max = Math.max(...tenors.map((t) => t.pts), 0) || 1;
  return (
    <div
      className="flex h-full items-end gap-3 border-b border-slate-400 px-12 pt-8 pb-0"
      data-testid={`${testId}-preview`}
      aria-hidden="true"
    >
      {tenors.map((t) => (
        <div key={t.tenorDays} className="flex h-full flex-1 flex-col justify-end text-center text-xs text-slate-700">
          <span>{t.pts.toFixed(2)}</span>
          <div
            className="rounded-t"
            style={{ height: `${(t.pts / max) * 80}%`, background: t.headline ? "#2f5bea" : "#93c5fd" }}
          />
        </div>
      ))}
    </div>
  );
}

/** Points at each published tenor: a small bar per horizon, the headline tenor emphasised. */
export function TermStructureChart({
  tenors,
  label,
  filename,
  ticker,
  seriesName,
  computedAt,
  attribution,
  testId = "term-chart",
}: {
  tenors: TermPoint[];
  label: string;
  filename: string;
  /** the series' ticker and the computation's time (API timestamp): columns of the CSV, lines of the PNG */
  ticker: string;
  seriesName: string;
  computedAt: string;
  /** the attribution line the terms require on anything published, on the PNG */
  attribution?: string;
  testId?: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const [wanted, want] = useLoadWhenIdle();
  useEffect(() => {
    void loadTermStructurePlot();
  }, []);
  const preview = <TermPreview tenors={tenors} testId={testId} />;
  return (
    <div onPointerEnter={want} onTouchStart={want} onFocus={want}>
      <div className="mb-2 flex justify-end">
        <ChartDownloads
          filename={filename}
          title={label}
          frame={frame}
          testId={testId}
          publish={{
            series: seriesName,
            asOf: computedAt,
            attribution,
            legend: [
              { label: "Headline tenor", color: "#2f5bea", kind: "bar" },
              { label: "Other tenors", color: "#93c5fd", kind: "bar" },
            ],
          }}
          csv={() =>
            toCsv(
              ["ticker", "computedAt", "tenorDays", "pts", "headline"],
              tenors.map((t) => [ticker, computedAt, t.tenorDays, t.pts, t.headline ? "true" : "false"]),
            )
          }
        />
      </div>
      <div
        ref={frame}
        className="h-56 w-full min-w-0 overflow-hidden"
        data-testid={`${testId}-frame`}
        data-count={tenors.length}
      >
        {wanted ? (
          <Suspense fallback={preview}>
            <TermStructurePlot tenors={tenors} label={label} testId={testId} />
          </Suspense>
        ) : (
          preview
        )}
      </div>
    </div>
  );
}
