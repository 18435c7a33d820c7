"use client";

import { Area, ComposedChart, Legend, Line } from "recharts";
import type { TimeWindow } from "./axis-format";
import { type HistoryRow, TooltipTime } from "./history-chart-frame";
import { HistoryPlot } from "./history-plot";
import { pts6 } from "@/lib/site/volatility-series";

export interface VolatilityRow extends HistoryRow {
  band: [number, number];
  cf: number | null;
  status: string;
}

/** Band fill: blue-300 at 45%; its legend text is slate-700 (the swatch carries the colour). */
const BAND = "#93c5fd";
const CF = "#475569";

/** The volatility chart's interactive drawing (loaded after the page is usable; see HistoryChartFrame). */
export default function VolatilityPlot({
  rows,
  span,
  testId,
  label,
  tenorDays,
  backCalculatedUntil,
}: {
  rows: VolatilityRow[];
  span: TimeWindow;
  testId: string;
  label: string;
  tenorDays: number;
  backCalculatedUntil?: number | null;
}) {
  return (
    <HistoryPlot
      backCalculatedUntil={backCalculatedUntil}
      chart={ComposedChart}
      rows={rows}
      span={span}
      testId={testId}
      label={label}
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
            Band <span className="font-mono">{pts6(row.band[0])}</span> to{" "}
            <span className="font-mono">{pts6(row.band[1])}</span>
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
      <Legend
        verticalAlign="top"
        iconSize={10}
        wrapperStyle={{ fontSize: 12, color: "#334155" }}
        formatter={(value: string) => <span style={{ color: "#334155" }}>{value}</span>}
      />
      <Area
        type="linear"
        dataKey="band"
        name="Uncertainty band"
        stroke="none"
        fill={BAND}
        fillOpacity={0.45}
        isAnimationActive={false}
        activeDot={false}
      />
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
    </HistoryPlot>
  );
}
