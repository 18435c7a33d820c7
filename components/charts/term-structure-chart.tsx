"use client";

import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface TermPoint {
  tenorDays: number;
  pts: number;
  headline: boolean;
}

/** Points at each published tenor: a small bar per horizon, the headline tenor emphasised. */
export function TermStructureChart({ tenors, label, testId = "term-chart" }: { tenors: TermPoint[]; label: string; testId?: string }) {
  const rows = tenors.map((t) => ({ ...t, name: `${t.tenorDays}d`, fill: t.headline ? "#2f5bea" : "#93c5fd" }));
  return (
    <div className="h-56 w-full min-w-0 overflow-hidden" data-testid={`${testId}-frame`} data-count={rows.length}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 360, height: 224 }}>
        <BarChart data={rows} margin={{ top: 20, right: 8, bottom: 4, left: 0 }} data-testid={testId} role="img" aria-label={label}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
          <XAxis dataKey="name" tick={{ fontSize: 12, fill: "#64748b" }} tickLine={false} axisLine={{ stroke: "#cbd5e1" }} />
          <YAxis tick={{ fontSize: 12, fill: "#64748b" }} tickLine={false} axisLine={false} width={40} tickFormatter={(v: number) => v.toFixed(0)} />
          <Tooltip
            cursor={{ fill: "#f1f5f9" }}
            isAnimationActive={false}
            formatter={(value) => [`${String(value)} pts`, "Value"]}
            labelFormatter={(name) => `Over ${String(name).replace("d", " days")}`}
          />
          <Bar dataKey="pts" isAnimationActive={false} radius={[3, 3, 0, 0]}>
            <LabelList dataKey="pts" position="top" fontSize={11} fill="#334155" formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v ?? ""))} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
