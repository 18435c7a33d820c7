"use client";

import { useMemo } from "react";
import { Area, ComposedChart, Legend, Line } from "recharts";
import { timeWindow } from "./axis-format";
import { toCsv } from "./chart-downloads";
import { ChartPreview } from "./chart-preview";
import { HistoryChartFrame, type HistoryRow, LINE, TooltipTime } from "./history-chart-frame";
import { type PackedVolatilitySeries, pts6, unpackVolatility } from "./volatility-series";

interface Row extends HistoryRow {
  band: [number, number];
  cf: number | null;
  status: string;
}

/** Band fill: blue-300 at 45%; its legend text is slate-700 (the swatch carries the colour). */
const BAND = "#93c5fd";
const CF = "#475569";

/** Published headline values with their uncertainty band and the frozen-inception analytic. */
export function VolatilityHistoryChart({
  series,
  tenorDays,
  label,
  filename,
  testId = "volatility-chart",
}: {
  series: PackedVolatilitySeries;
  tenorDays: number;
  label: string;
  filename: string;
  testId?: string;
}) {
  const points = useMemo(() => unpackVolatility(series), [series]);
  const rows: Row[] = useMemo(
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
      chart={ComposedChart}
      rows={rows}
      span={span}
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
      testId={testId}
      label={label}
      download={{
        filename,
        title: label,
        csv: () =>
          toCsv(
            ["t", "headlinePts", "bandLoPts", "bandHiPts", "cfHeadlinePts", "status"],
            points.map((p) => [p.t, p.headlinePts, p.bandLoPts, p.bandHiPts, p.cfHeadlinePts, p.status]),
          ),
      }}
      yAxis={{
        width: 48,
        tickFormatter: (v: number) => v.toFixed(1),
        label: { value: "pts", angle: -90, position: "insideLeft", fill: "#475569", fontSize: 12 },
      }}
      tooltip={(row) => (
        <>
          <p className="text-sm font-semibold text-slate-900">
            <span className="font-mono">{pts6(row.y)}</span> pts over {tenorDays} {tenorDays === 1 ? "day" : "days"}
          </p>
          <p className="text-slate-600">
            Band <span className="font-mono">{pts6(row.band[0])}</span> to <span className="font-mono">{pts6(row.band[1])}</span>
          </p>
          {row.cf !== null && (
            <p className="text-slate-600">
              Frozen-inception analytic <span className="font-mono">{pts6(row.cf)}</span>
            </p>
          )}
          <p className="text-slate-600">
            <TooltipTime row={row} /> · {row.status}
          </p>
        </>
      )}
      lineName={`Headline (${tenorDays} days)`}
    >
      <Legend verticalAlign="top" iconSize={10} wrapperStyle={{ fontSize: 12, color: "#334155" }} formatter={(value: string) => <span style={{ color: "#334155" }}>{value}</span>} />
      <Area type="linear" dataKey="band" name="Uncertainty band" stroke="none" fill={BAND} fillOpacity={0.45} isAnimationActive={false} activeDot={false} />
      <Line
        type="linear"
        dataKey="cf"
        name="Frozen-inception analytic"
        stroke={CF}
        strokeDasharray="5 4"
        strokeWidth={1.25}
        dot={false}
        activeDot={false}
        connectNulls
        isAnimationActive={false}
      />
    </HistoryChartFrame>
  );
}
