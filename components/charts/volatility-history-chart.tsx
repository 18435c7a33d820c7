"use client";

import { lazy, useMemo } from "react";
import { timeWindow, toMs } from "./axis-format";
import { toCsv } from "./chart-downloads";
import { ChartPreview } from "./chart-preview";
import { HistoryChartFrame, LINE, rangeSubtitle } from "./history-chart-frame";
import { type PackedVolatilitySeries, unpackVolatility } from "@/lib/site/volatility-series";
import type { VolatilityRow } from "./volatility-plot";

/** The chart library's part, fetched after the page is usable. */
const loadVolatilityPlot = () => import("./volatility-plot");
const VolatilityPlot = lazy(loadVolatilityPlot);

/** Band fill and the analytic's line: the same colours as the interactive chart (volatility-plot.tsx). */
const BAND = "#93c5fd";
const CF = "#475569";

/** Published headline values with their uncertainty band and the frozen-inception analytic. */
export function VolatilityHistoryChart({
  series,
  tenorDays,
  label,
  filename,
  backCalculatedUntil = null,
  seriesName,
  attribution,
  testId = "volatility-chart",
}: {
  series: PackedVolatilitySeries;
  tenorDays: number;
  label: string;
  filename: string;
  /** the launch (API timestamp): values before it are back-calculated, shaded on the plot */
  backCalculatedUntil?: string | null;
  /** the series' ticker and name, on the PNG */
  seriesName?: string;
  /** the attribution line the terms require on anything published, on the PNG */
  attribution?: string;
  testId?: string;
}) {
  const launch = backCalculatedUntil ? toMs(backCalculatedUntil) : null;
  const points = useMemo(() => unpackVolatility(series), [series]);
  const rows: VolatilityRow[] = useMemo(
    () =>
      points.map((p) => ({
        t: p.t,
        x: p.x,
        y: p.headlinePts,
        value: String(p.headlinePts),
        band: [p.bandLoPts, p.bandHiPts],
        cf: p.cfHeadlinePts,
        status: p.status,
      })),
    [points],
  );

  const span = timeWindow(rows);
  return (
    <HistoryChartFrame
      count={rows.length}
      testId={testId}
      preview={
        <ChartPreview
          xs={rows.map((r) => r.x)}
          span={span}
          testId={testId}
          yFormat={(v) => v.toFixed(1)}
          band={{ lo: series.lo, hi: series.hi, color: BAND }}
          lines={[
            { values: series.cf, color: CF, dash: "5 4", width: 1.25 },
            { values: series.headline, color: LINE },
          ]}
        />
      }
      preload={loadVolatilityPlot}
      plot={() => (
        <VolatilityPlot
          rows={rows}
          span={span}
          testId={testId}
          label={label}
          tenorDays={tenorDays}
          backCalculatedUntil={launch}
        />
      )}
      download={{
        filename,
        title: label,
        subtitle: rangeSubtitle(span),
        publish: seriesName
          ? {
              series: seriesName,
              asOf: rows.at(-1)?.t ?? "",
              attribution,
              legend: [
                { label: `Line: headline, points over ${tenorDays} days`, color: LINE, kind: "line" },
                { label: "Band: published uncertainty band", color: BAND, kind: "band" },
                { label: "Dashed: frozen-inception analytic", color: CF, kind: "dashed" },
                ...(launch !== null && launch > span.first
                  ? [{ label: "Shaded: back-calculated", color: "#cbd5e1", kind: "shade" as const }]
                  : []),
              ],
            }
          : undefined,
        csv: () =>
          toCsv(
            ["t", "headlinePts", "bandLoPts", "bandHiPts", "cfHeadlinePts", "status", "basis"],
            points.map((p) => [
              p.t,
              p.headlinePts,
              p.bandLoPts,
              p.bandHiPts,
              p.cfHeadlinePts,
              p.status,
              launch !== null && p.x < launch ? "back-calculated" : "live",
            ]),
          ),
      }}
    />
  );
}
