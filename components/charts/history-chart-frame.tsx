import type { ReactNode } from "react";
import { CartesianGrid, type ComposedChart, Line, type LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type YAxisProps } from "recharts";
import { fullLabel, tickLabel, type TimeWindow } from "./axis-format";
import { chartDot, dotRadius } from "./chart-dot";

/** Colour of a history chart's headline line and its point markers. */
export const LINE = "#2f5bea";

const AXIS_TICK = { fontSize: 12, fill: "#64748b" };

/** One plotted point: `x` and `y` are what is drawn; `t` and `value` are the API's exact values. */
export interface HistoryRow {
  t: string;
  x: number;
  y: number;
  value: string;
}

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
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md" data-testid="chart-tooltip">
      {render(row)}
    </div>
  );
}

/** A row's time in a tooltip, in UTC, with the API's timestamp in `dateTime`. */
export function TooltipTime({ row }: { row: HistoryRow }) {
  return <time dateTime={row.t}>{fullLabel(row.x)}</time>;
}

/**
 * A value over time: the sized box, the grid, the time axis, the value axis, the tooltip and the
 * headline line with one `chart-point` marker per row. Marks and further series are the caller's.
 */
export function HistoryChartFrame<R extends HistoryRow>({
  chart: Chart,
  rows,
  span: { first, last, ticks, withHour },
  testId,
  label,
  yAxis,
  tooltip,
  lineName,
  marks,
  children,
}: {
  chart: typeof LineChart | typeof ComposedChart;
  rows: R[];
  span: TimeWindow;
  testId: string;
  /** the accessible name of the chart */
  label: string;
  yAxis: Pick<YAxisProps, "dataKey" | "width" | "tickFormatter" | "label">;
  tooltip: (row: R) => ReactNode;
  lineName?: string;
  /** drawn before the tooltip, e.g. reference lines */
  marks?: ReactNode;
  /** series drawn under the headline line */
  children?: ReactNode;
}) {
  const Dot = chartDot(LINE, dotRadius(rows.length));
  return (
    <div className="h-72 w-full min-w-0 overflow-hidden sm:h-80" data-testid={`${testId}-frame`} data-count={rows.length}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 320 }}>
        <Chart data={rows} margin={{ top: 16, right: 12, bottom: 4, left: 4 }} data-testid={testId} data-count={rows.length} role="img" aria-label={label}>
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
            axisLine={{ stroke: "#cbd5e1" }}
            minTickGap={16}
          />
          <YAxis type="number" domain={["auto", "auto"]} tick={AXIS_TICK} tickLine={false} axisLine={false} {...yAxis} />
          {marks}
          <Tooltip content={<HistoryTooltip render={tooltip} />} isAnimationActive={false} />
          {children}
          <Line type="linear" dataKey="y" name={lineName} stroke={LINE} strokeWidth={1.75} dot={Dot} activeDot={{ r: 4, fill: LINE }} isAnimationActive={false} />
        </Chart>
      </ResponsiveContainer>
    </div>
  );
}
