"use client";

import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fullLabel, tickLabel, timeTicks, toMs } from "./axis-format";
import { chartDot, dotRadius } from "./chart-dot";

export interface VolatilityChartPoint {
  t: string;
  headlinePts: number;
  bandLoPts: number;
  bandHiPts: number;
  cfHeadlinePts: number | null;
  status: string;
}

interface Row {
  t: string;
  x: number;
  y: number;
  /** the exact published number, as on the API */
  value: string;
  band: [number, number];
  cf: number | null;
  status: string;
}

const LINE = "#2f5bea";
const BAND = "#93c5fd";
const CF = "#64748b";

function VolatilityTooltip({ active, payload, tenorDays }: { active?: boolean; payload?: ReadonlyArray<{ payload?: Row }>; tenorDays: number }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md" data-testid="chart-tooltip">
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
        <time dateTime={row.t}>{fullLabel(row.x)}</time> · {row.status}
      </p>
    </div>
  );
}

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
  const first = rows[0]?.x ?? 0;
  const last = rows[rows.length - 1]?.x ?? 0;
  const ticks = timeTicks(first, last);
  const withHour = last - first <= 3 * 86_400_000;
  const Dot = chartDot(LINE, dotRadius(rows.length));

  return (
    <div className="h-72 w-full min-w-0 overflow-hidden sm:h-80" data-testid={`${testId}-frame`} data-count={rows.length}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 320 }}>
        <ComposedChart
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
            type="number"
            domain={["auto", "auto"]}
            tick={{ fontSize: 12, fill: "#64748b" }}
            tickLine={false}
            axisLine={false}
            width={48}
            tickFormatter={(v: number) => v.toFixed(1)}
            label={{ value: "pts", angle: -90, position: "insideLeft", fill: "#64748b", fontSize: 12 }}
          />
          <Tooltip content={<VolatilityTooltip tenorDays={tenorDays} />} isAnimationActive={false} />
          <Legend verticalAlign="top" iconSize={10} wrapperStyle={{ fontSize: 12 }} />
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
          <Line
            type="linear"
            dataKey="y"
            name={`Headline (${tenorDays} days)`}
            stroke={LINE}
            strokeWidth={1.75}
            dot={Dot}
            activeDot={{ r: 4, fill: LINE }}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
