import { type ReactNode, useRef } from "react";
import { useHydrated } from "@/components/portal/use-hydrated";
import { CartesianGrid, type ComposedChart, Line, type LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type YAxisProps } from "recharts";
import { fullLabel, tickLabel, type TimeWindow } from "./axis-format";
import { ChartDownloads } from "./chart-downloads";
import { chartDot, dotRadius } from "./chart-dot";

/** Colour of a history chart's headline line and its point markers. */
export const LINE = "#2f5bea";

/** Axis text: slate-600, 7.6:1 on white (slate-500 is 4.8:1 and too light at 12 px for some). */
const AXIS_TICK = { fontSize: 12, fill: "#475569" };

/** One plotted point: `x` and `y` are what is drawn; `t` and `value` are the API's exact values. */
export interface HistoryRow {
  t: string;
  x: number;
  y: number;
  value: string;
  /** drawn as the line's last point but not one of the API history's points (the latest level) */
  extra?: boolean;
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
 * A value over time: the controls and downloads, the sized box, the grid, the time axis, the
 * value axis, the tooltip and the headline line with one `chart-point` marker per row. Marks and
 * further series are the caller's.
 */
export function HistoryChartFrame<R extends HistoryRow>({
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
  controls,
  download,
  preview,
  children,
}: {
  chart: typeof LineChart | typeof ComposedChart;
  rows: R[];
  span: TimeWindow;
  testId: string;
  /** the accessible name of the chart */
  label: string;
  yAxis: Pick<YAxisProps, "dataKey" | "width" | "tickFormatter" | "label">;
  yScale?: "linear" | "log";
  tooltip: (row: R) => ReactNode;
  lineName?: string;
  /** drawn before the tooltip, e.g. reference lines */
  marks?: ReactNode;
  /** toggles shown above the chart, before the downloads */
  controls?: ReactNode;
  /** the CSV of the plotted series and the files' names */
  download: { filename: string; title: string; csv: () => string };
  /** a plain SVG drawing of the series, in the HTML and shown until the interactive chart renders */
  preview?: ReactNode;
  /** series drawn under the headline line */
  children?: ReactNode;
}) {
  const hydrated = useHydrated();
  const Dot = chartDot(LINE, dotRadius(rows.length));
  const frame = useRef<HTMLDivElement>(null);
  return (
    <div>
      <div className="mb-2 flex flex-wrap items-center justify-end gap-x-4 gap-y-2 text-xs text-slate-700">
        {controls}
        <ChartDownloads filename={download.filename} title={download.title} csv={download.csv} frame={frame} testId={testId} />
      </div>
      <div ref={frame} className="relative h-72 w-full min-w-0 overflow-hidden sm:h-80" data-testid={`${testId}-frame`} data-count={rows.length}>
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
            <YAxis type="number" scale={yScale} domain={["auto", "auto"]} allowDataOverflow={false} tick={AXIS_TICK} tickLine={false} axisLine={false} {...yAxis} />
            {marks}
            <Tooltip content={<HistoryTooltip render={tooltip} />} isAnimationActive={false} />
            {children}
            <Line type="linear" dataKey="y" name={lineName} stroke={LINE} strokeWidth={1.75} dot={Dot} activeDot={{ r: 4, fill: LINE }} isAnimationActive={false} />
          </Chart>
        </ResponsiveContainer>
        {hydrated ? null : preview}
      </div>
    </div>
  );
}
