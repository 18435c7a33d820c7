"use client";

import type { ReactNode } from "react";
import {
  CartesianGrid,
  type ComposedChart,
  Line,
  type LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type YAxisProps,
} from "recharts";
import { tickLabel, type TimeWindow } from "./axis-format";
import { PointMarks } from "./chart-dot";
import { type HistoryRow, LINE } from "./history-chart-frame";

/** Axis text: slate-600, 7.6:1 on white (slate-500 is 4.8:1 and too light at 12 px for some). */
const AXIS_TICK = { fontSize: 12, fill: "#475569" };

function HistoryTooltip<R extends HistoryRow>({
  active,
  payload,
  render,
}: {
  active?: boolean;
  payload?: ReadonlyArray<{ payload?: R }>;
  render: (row: R) => ReactNode;
}) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div
      className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md"
      data-testid="chart-tooltip"
    >
      {render(row)}
    </div>
  );
}

export interface HistoryPlotProps<R extends HistoryRow> {
  chart: typeof LineChart | typeof ComposedChart;
  rows: R[];
  span: TimeWindow;
  testId: string;
  /** the accessible name of the chart */
  label: string;
  /** the value axis; `domain` and `ticks` replace the automatic ones */
  yAxis: Pick<YAxisProps, "dataKey" | "width" | "tickFormatter" | "label" | "domain" | "ticks">;
  yScale?: "linear" | "log";
  tooltip: (row: R) => ReactNode;
  lineName?: string;
  /** drawn before the tooltip, e.g. reference lines */
  marks?: ReactNode;
  /** series drawn under the headline line */
  children?: ReactNode;
  /** the launch (ms): values before it are back-calculated and drawn on a shaded ground (the page gives the legend) */
  backCalculatedUntil?: number | null;
}

/** Ground of the back-calculated hours: slate-200 at 60%, under the grid lines' colour. */
export const BACK_CALCULATED_FILL = "#e2e8f0";

/**
 * The interactive drawing of a value over time (the chart library's part, loaded after the page
 * is usable): the grid, the time axis, the value axis, the tooltip and the headline line with one
 * `chart-point` marker per row. Marks and further series are the caller's.
 */
export function HistoryPlot<R extends HistoryRow>({
  chart: Chart,
  rows,
  span: { first, last, ticks, withHour },
  testId,
  label,
  yAxis,
  yScale = "linear",
  tooltip,
  lineName,
  marks,
  children,
  backCalculatedUntil,
}: HistoryPlotProps<R>) {
  const shadeUntil =
    backCalculatedUntil != null && backCalculatedUntil > first ? Math.min(backCalculatedUntil, last) : null;
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 320 }}>
      <Chart
        data={rows}
        margin={{ top: 16, right: 12, bottom: 4, left: 4 }}
        data-testid={testId}
        data-count={rows.length}
        data-y-scale={yScale}
        role="img"
        aria-label={label}
      >
        <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
        <XAxis
          dataKey="x"
          type="number"
          scale="time"
          domain={[first, last]}
          ticks={ticks}
          tickFormatter={(v: number) => tickLabel(v, withHour)}
          tick={AXIS_TICK}
          tickLine={false}
          axisLine={{ stroke: "#94a3b8" }}
          minTickGap={16}
        />
        <YAxis
          type="number"
          scale={yScale}
          domain={["auto", "auto"]}
          allowDataOverflow={false}
          tick={AXIS_TICK}
          tickLine={false}
          axisLine={false}
          {...yAxis}
        />
        {shadeUntil !== null && (
          <ReferenceArea
            x1={first}
            x2={shadeUntil}
            fill={BACK_CALCULATED_FILL}
            fillOpacity={0.6}
            ifOverflow="hidden"
            className="back-calculated-area"
          />
        )}
        {marks}
        <Tooltip content={<HistoryTooltip render={tooltip} />} isAnimationActive={false} />
        {children}
        <Line
          type="linear"
          dataKey="y"
          name={lineName}
          stroke={LINE}
          strokeWidth={1.75}
          dot={false}
          activeDot={{ r: 4, fill: LINE }}
          isAnimationActive={false}
        />
        <PointMarks rows={rows} color={LINE} />
      </Chart>
    </ResponsiveContainer>
  );
}
