"use client";

import { useMemo, useRef, useState } from "react";
import { LineChart, ReferenceLine } from "recharts";
import { timeWindow, toMs } from "./axis-format";
import { toCsv } from "./chart-downloads";
import { ChartPreview } from "./chart-preview";
import { groupEvents } from "./event-groups";
import { HistoryChartFrame, type HistoryRow, LINE, TooltipTime } from "./history-chart-frame";
import { useWidth } from "./use-width";

export interface LevelChartPoint {
  /** API timestamp */
  t: string;
  /** exact decimal level string */
  indexLevel: string;
}

export interface LevelChartEvent {
  t: string;
  label: string;
}

/** Plot area width: the frame less the value axis and margins. */
const AXIS_AND_MARGINS = 76;

/**
 * Index levels over the selected window, with the reconstitutions in it marked (grouped so
 * markers never overlap, and hideable), a log-scale toggle, and the latest level as the line's
 * last point when it falls after the last point of the interval (a daily chart's last fixing).
 */
export function LevelChart({
  points,
  latest,
  events,
  interval,
  label,
  filename,
  testId = "level-chart",
}: {
  points: LevelChartPoint[];
  /** the latest level (GET .../latest), drawn last when newer than the last point */
  latest?: LevelChartPoint | null;
  events: LevelChartEvent[];
  interval: "1h" | "1d";
  label: string;
  filename: string;
  testId?: string;
}) {
  const [log, setLog] = useState(false);
  const [showEvents, setShowEvents] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box, 800);

  // `y` is plotted only; tooltips, tables and the CSV use the exact `value`.
  const rows: HistoryRow[] = useMemo(() => {
    const out: HistoryRow[] = points.map((p) => ({ t: p.t, value: p.indexLevel, x: toMs(p.t), y: Number(p.indexLevel) }));
    const end = out[out.length - 1];
    if (latest && (!end || toMs(latest.t) > end.x)) out.push({ t: latest.t, value: latest.indexLevel, x: toMs(latest.t), y: Number(latest.indexLevel), extra: true });
    return out;
  }, [points, latest]);
  const span = timeWindow(rows, { hourly: interval === "1h" });
  const groups = useMemo(
    () => groupEvents(events.map((e) => ({ ...e, x: toMs(e.t) })), span.first, span.last, Math.max(40, width - AXIS_AND_MARGINS)),
    [events, span.first, span.last, width],
  );
  const eventCount = groups.reduce((n, g) => n + g.events.length, 0);
  const kind = interval === "1h" ? "hourly" : "fixing";

  return (
    <div ref={box} data-testid={`${testId}-box`} data-event-groups={groups.length} data-events={eventCount}>
      <HistoryChartFrame
        chart={LineChart}
        rows={rows}
        span={span}
        testId={testId}
        label={label}
        yScale={log ? "log" : "linear"}
        preview={<ChartPreview xs={rows.map((r) => r.x)} span={span} testId={testId} yFormat={(v) => v.toFixed(2)} lines={[{ values: rows.map((r) => r.y), color: LINE }]} />}
        yAxis={{ dataKey: "y", width: 56, tickFormatter: (v: number) => v.toFixed(2) }}
        download={{
          filename,
          title: label,
          csv: () => toCsv(["t", "indexLevel", "kind"], rows.map((r) => [r.t, r.value, r.extra ? "latest" : kind])),
        }}
        controls={
          <>
            {eventCount > 0 && (
              <label className="inline-flex cursor-pointer items-center gap-1.5">
                <input type="checkbox" checked={showEvents} onChange={(e) => setShowEvents(e.target.checked)} data-testid="toggle-reconstitutions" />
                Reconstitutions ({eventCount})
              </label>
            )}
            <label className="inline-flex cursor-pointer items-center gap-1.5">
              <input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} data-testid="toggle-log-scale" />
              Log scale
            </label>
          </>
        }
        marks={
          showEvents
            ? groups.map((g) => (
                <ReferenceLine
                  key={g.x}
                  x={g.x}
                  stroke="#d97706"
                  strokeDasharray="4 3"
                  className="reconstitution-mark"
                  label={{ value: g.events.length === 1 ? "R" : `R×${g.events.length}`, position: "top", fill: "#92400e", fontSize: 11 }}
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
            </p>
          </>
        )}
      />
    </div>
  );
}
