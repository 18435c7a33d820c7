"use client";

import { LineChart, ReferenceLine } from "recharts";
import { logAxis, type TimeWindow } from "./axis-format";
import type { EventGroup } from "./event-groups";
import { type HistoryRow, TooltipTime } from "./history-chart-frame";
import { HistoryPlot } from "./history-plot";

/** The index chart's interactive drawing (loaded after the page is usable; see HistoryChartFrame). */
export default function LevelPlot({
  rows,
  span,
  testId,
  label,
  log,
  groups,
  backCalculatedUntil,
}: {
  rows: HistoryRow[];
  span: TimeWindow;
  testId: string;
  label: string;
  log: boolean;
  groups: EventGroup[] | null;
  backCalculatedUntil?: number | null;
}) {
  return (
    <HistoryPlot
      backCalculatedUntil={backCalculatedUntil}
      chart={LineChart}
      rows={rows}
      span={span}
      testId={testId}
      label={label}
      yScale={log ? "log" : "linear"}
      yAxis={{ dataKey: "y", width: 56, tickFormatter: (v: number) => v.toFixed(2), ...(log ? logAxis(rows) : {}) }}
      marks={
        groups
          ? groups.map((g) => (
              <ReferenceLine
                key={g.x}
                x={g.x}
                stroke="#d97706"
                strokeDasharray="4 3"
                className="reconstitution-mark"
                label={{
                  value: g.events.length === 1 ? "R" : `R×${g.events.length}`,
                  position: "top",
                  fill: "#92400e",
                  fontSize: 11,
                }}
              />
            ))
          : null
      }
      tooltip={(row) => (
        <>
          <p className="font-mono text-sm font-semibold text-slate-900">{row.value}</p>
          <p className="text-slate-600">
            <TooltipTime row={row} />
            {row.extra ? " · latest level" : ""}
            {backCalculatedUntil != null && row.x < backCalculatedUntil ? " · back-calculated" : ""}
          </p>
        </>
      )}
    />
  );
}
