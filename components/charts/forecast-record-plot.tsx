"use client";

import {
  CartesianGrid,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { RecordSeries } from "./forecast-record-series";

const COLORS = ["#2f5bea", "#0f766e", "#b45309", "#7c3aed"];

/** A window's dot, carrying its tenor, start and both moves (tests read them from the SVG). */
function windowDot(tenorDays: number, color: string) {
  function WindowDot(props: unknown) {
    const { cx, cy, payload } = props as {
      cx?: number;
      cy?: number;
      payload?: { start: string; expectedPts: number; realizedPts: number };
    };
    if (typeof cx !== "number" || typeof cy !== "number" || payload === undefined) return <g />;
    return (
      <circle
        className="chart-point"
        data-tenor-days={tenorDays}
        data-t={payload.start}
        data-expected={payload.expectedPts}
        data-realized={payload.realizedPts}
        cx={cx}
        cy={cy}
        r={2.5}
        fill={color}
        fillOpacity={0.75}
      />
    );
  }
  return WindowDot;
}

/** Realized against expected move, one dot per window starting at 00:00 UTC, a colour per tenor; the diagonal is realized = expected. */
export default function ForecastRecordPlot({
  series,
  label,
  testId,
}: {
  series: RecordSeries[];
  label: string;
  testId: string;
}) {
  const max = Math.max(1, ...series.flatMap((s) => s.points.flatMap((p) => [p.expectedPts, p.realizedPts])));
  const top = Math.ceil(max / 5) * 5;
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 480, height: 288 }}>
      <ScatterChart
        margin={{ top: 12, right: 16, bottom: 24, left: 4 }}
        data-testid={testId}
        role="img"
        aria-label={label}
      >
        <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
        <XAxis
          type="number"
          dataKey="expectedPts"
          name="Expected"
          domain={[0, top]}
          tick={{ fontSize: 12, fill: "#475569" }}
          label={{
            value: "expected move at the window's start (pts)",
            position: "insideBottom",
            offset: -14,
            fontSize: 12,
            fill: "#475569",
          }}
        />
        <YAxis
          type="number"
          dataKey="realizedPts"
          name="Realized"
          domain={[0, top]}
          tick={{ fontSize: 12, fill: "#475569" }}
          width={40}
        />
        <ReferenceLine
          segment={[
            { x: 0, y: 0 },
            { x: top, y: top },
          ]}
          stroke="#94a3b8"
          strokeDasharray="4 4"
          ifOverflow="extendDomain"
        />
        <Tooltip
          isAnimationActive={false}
          formatter={(value) => `${typeof value === "number" ? value.toFixed(2) : String(value)} pts`}
        />
        <Legend verticalAlign="top" height={24} wrapperStyle={{ fontSize: 12 }} />
        {series.map((s, i) => (
          <Scatter
            key={s.tenorDays}
            name={`${s.tenorDays} days`}
            data={s.points}
            fill={COLORS[i % COLORS.length]}
            shape={windowDot(s.tenorDays, COLORS[i % COLORS.length] as string)}
            isAnimationActive={false}
          />
        ))}
      </ScatterChart>
    </ResponsiveContainer>
  );
}
