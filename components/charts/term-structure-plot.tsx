"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TermPoint } from "./term-point";

/** The term structure's interactive drawing (loaded after the page is usable). */
export default function TermStructurePlot({
  tenors,
  label,
  testId,
}: {
  tenors: TermPoint[];
  label: string;
  testId: string;
}) {
  const rows = tenors.map((t) => ({ ...t, name: `${t.tenorDays}d`, fill: t.headline ? "#2f5bea" : "#93c5fd" }));
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 360, height: 224 }}>
      <BarChart
        data={rows}
        margin={{ top: 20, right: 8, bottom: 4, left: 0 }}
        data-testid={testId}
        role="img"
        aria-label={label}
      >
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
        <XAxis
          dataKey="name"
          tick={{ fontSize: 12, fill: "#475569" }}
          tickLine={false}
          axisLine={{ stroke: "#94a3b8" }}
        />
        <YAxis
          tick={{ fontSize: 12, fill: "#475569" }}
          tickLine={false}
          axisLine={false}
          width={40}
          tickFormatter={(v: number) => v.toFixed(0)}
        />
        <Tooltip
          cursor={{ fill: "#f1f5f9" }}
          isAnimationActive={false}
          formatter={(value) => [`${typeof value === "number" ? value.toFixed(6) : String(value)} pts`, "Value"]}
          labelFormatter={(name) => `Over ${String(name).replace("d", " days")}`}
        />
        <Bar dataKey="pts" isAnimationActive={false} radius={[3, 3, 0, 0]}>
          <LabelList
            dataKey="pts"
            position="top"
            fontSize={11}
            fill="#334155"
            formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v ?? ""))}
          />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}
