"use client";

import { Area, ComposedChart, Legend, Line } from "recharts";
import { timeWindow, toMs } from "./axis-format";
import { HistoryChartFrame, type HistoryRow, TooltipTime } from "./history-chart-frame";

export interface VolatilityChartPoint {
  t: string;
  headlinePts: number;
  bandLoPts: number;
  bandHiPts: number;
  cfHeadlinePts: number | null;
  status: string;
}

interface Row extends HistoryRow {
  band: [number, number];
  cf: number | null;
  status: string;
}

const BAND = "#93c5fd";
const CF = "#64748b";

/** Published headline values with their uncertainty band and the frozen-inception analytic. */
export function VolatilityHistoryChart({
  points,
  tenorDays,
  label,
  testId = "volatility-chart",
}: {
  points: VolatilityChartPoint[];
  tenorDays: number;
  label: string;
  testId?: string;
}) {
  const rows: Row[] = points.map((p) => ({
    t: p.t,
    x: toMs(p.t),
    y: p.headlinePts,
    value: String(p.headlinePts),
    band: [p.bandLoPts, p.bandHiPts],
    cf: p.cfHeadlinePts,
    status: p.status,
  }));

  return (
    <HistoryChartFrame
      chart={ComposedChart}
      rows={rows}
      span={timeWindow(rows)}
      testId={testId}
      label={label}
      yAxis={{
        width: 48,
        tickFormatter: (v: number) => v.toFixed(1),
        label: { value: "pts", angle: -90, position: "insideLeft", fill: "#64748b", fontSize: 12 },
      }}
      tooltip={(row) => (
        <>
          <p className="text-sm font-semibold text-slate-900">
            <span className="font-mono">{row.value}</span> pts over {tenorDays} {tenorDays === 1 ? "day" : "days"}
          </p>
          <p className="text-slate-600">
            Band <span className="font-mono">{row.band[0]}</span> to <span className="font-mono">{row.band[1]}</span>
          </p>
          {row.cf !== null && (
            <p className="text-slate-600">
              Frozen-inception analytic <span className="font-mono">{row.cf}</span>
            </p>
          )}
          <p className="text-slate-600">
            <TooltipTime row={row} /> · {row.status}
          </p>
        </>
      )}
      lineName={`Headline (${tenorDays} days)`}
    >
      <Legend verticalAlign="top" iconSize={10} wrapperStyle={{ fontSize: 12 }} />
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
