"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fullLabel, tickLabel, timeTicks, toMs } from "./axis-format";
import { chartDot, dotRadius } from "./chart-dot";

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

interface Row extends LevelChartPoint {
  x: number;
  /** plotted only; tooltips and tables use `value` */
  y: number;
}

const LINE = "#2f5bea";

function LevelTooltip({ active, payload }: { active?: boolean; payload?: ReadonlyArray<{ payload?: Row }> }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md" data-testid="chart-tooltip">
      <p className="font-mono text-sm font-semibold text-slate-900">{row.value}</p>
      <p className="text-slate-600">
        <time dateTime={row.t}>{fullLabel(row.x)}</time>
      </p>
    </div>
  );
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
  const rows: Row[] = points.map((p) => ({ ...p, x: toMs(p.t), y: Number(p.value) }));
  const first = rows[0]?.x ?? 0;
  const last = rows[rows.length - 1]?.x ?? 0;
  const ticks = timeTicks(first, last);
  const withHour = last - first <= 3 * 86_400_000 || (interval === "1h" && ticks.some((t) => t % 86_400_000 !== 0));
  const marks = events.map((e) => ({ ...e, x: toMs(e.t) })).filter((e) => e.x >= first && e.x <= last);
  const Dot = chartDot(LINE, dotRadius(rows.length));

  return (
    <div className="h-72 w-full min-w-0 overflow-hidden sm:h-80" data-testid={`${testId}-frame`} data-count={rows.length}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 320 }}>
        <LineChart
          data={rows}
          margin={{ top: 16, right: 12, bottom: 4, left: 4 }}
          data-testid={testId}
          data-count={rows.length}
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
            tick={{ fontSize: 12, fill: "#64748b" }}
            tickLine={false}
            axisLine={{ stroke: "#cbd5e1" }}
            minTickGap={16}
          />
          <YAxis
            dataKey="y"
            type="number"
            domain={["auto", "auto"]}
            tick={{ fontSize: 12, fill: "#64748b" }}
            tickLine={false}
            axisLine={false}
            width={56}
            tickFormatter={(v: number) => v.toFixed(2)}
          />
          {marks.map((m) => (
            <ReferenceLine
              key={m.t}
              x={m.x}
              stroke="#f59e0b"
              strokeDasharray="4 3"
              className="reconstitution-mark"
              label={{ value: "R", position: "top", fill: "#b45309", fontSize: 11 }}
            />
          ))}
          <Tooltip content={<LevelTooltip />} isAnimationActive={false} />
          <Line
            type="linear"
            dataKey="y"
            stroke={LINE}
            strokeWidth={1.75}
            dot={Dot}
            activeDot={{ r: 4, fill: LINE }}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
