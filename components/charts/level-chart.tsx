"use client";

import { LineChart, ReferenceLine } from "recharts";
import { timeWindow, toMs } from "./axis-format";
import { HistoryChartFrame, type HistoryRow, TooltipTime } from "./history-chart-frame";

export interface LevelChartPoint {
  /** API timestamp */
  t: string;
  /** exact decimal level string */
  value: string;
}

export interface LevelChartEvent {
  t: string;
  label: string;
}

/** Index levels over the selected window, with the reconstitutions in it marked. */
export function LevelChart({
  points,
  events,
  interval,
  label,
  testId = "level-chart",
}: {
  points: LevelChartPoint[];
  events: LevelChartEvent[];
  interval: "1h" | "1d";
  label: string;
  testId?: string;
}) {
  // `y` is plotted only; tooltips and tables use the exact `value`.
  const rows: HistoryRow[] = points.map((p) => ({ ...p, x: toMs(p.t), y: Number(p.value) }));
  const span = timeWindow(rows, { hourly: interval === "1h" });
  const marks = events.map((e) => ({ ...e, x: toMs(e.t) })).filter((e) => e.x >= span.first && e.x <= span.last);

  return (
    <HistoryChartFrame
      chart={LineChart}
      rows={rows}
      span={span}
      testId={testId}
      label={label}
      yAxis={{ dataKey: "y", width: 56, tickFormatter: (v: number) => v.toFixed(2) }}
      marks={marks.map((m) => (
        <ReferenceLine
          key={m.t}
          x={m.x}
          stroke="#f59e0b"
          strokeDasharray="4 3"
          className="reconstitution-mark"
          label={{ value: "R", position: "top", fill: "#b45309", fontSize: 11 }}
        />
      ))}
      tooltip={(row) => (
        <>
          <p className="font-mono text-sm font-semibold text-slate-900">{row.value}</p>
          <p className="text-slate-600">
            <TooltipTime row={row} />
          </p>
        </>
      )}
    />
  );
}
