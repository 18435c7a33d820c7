"use client";

import { useRef } from "react";
import { ChartDownloads, toCsv } from "@/components/charts/chart-downloads";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCount, formatDay, formatHour } from "@/lib/portal/format";

export interface ChartBucket {
  start: string;
  success: number;
  clientError: number;
  rateLimited: number;
  serverError: number;
  total: number;
}

export const SERIES = [
  { key: "success", label: "Success (2xx)", color: "#10b981" },
  { key: "clientError", label: "Client error (4xx)", color: "#f59e0b" },
  { key: "rateLimited", label: "Rate limited (429)", color: "#f43f5e" },
  { key: "serverError", label: "Server error (5xx)", color: "#6366f1" },
] as const;

/**
 * Stacked requests per bucket. The numbers behind the bars are also in the figure's
 * `data-*` attributes and in a table, for screen readers and tests.
 */
export function UsageChart({
  id,
  title,
  buckets,
  granularity,
}: {
  id: string;
  title: string;
  buckets: ChartBucket[];
  granularity: "hour" | "day";
}) {
  const label = granularity === "hour" ? formatHour : formatDay;
  const rows = buckets.map((b) => ({ ...b, label: label(b.start) }));
  const total = buckets.reduce((n, b) => n + b.total, 0);
  const sum = (key: (typeof SERIES)[number]["key"]) => buckets.reduce((n, b) => n + b[key], 0);
  const frame = useRef<HTMLDivElement>(null);
  return (
    <figure
      aria-labelledby={`${id}-title`}
      data-testid={id}
      data-total={total}
      data-success={sum("success")}
      data-client-error={sum("clientError")}
      data-rate-limited={sum("rateLimited")}
      data-server-error={sum("serverError")}
      className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <figcaption id={`${id}-title`} className="font-semibold text-slate-900">
          {title}
        </figcaption>
        <div className="flex flex-wrap items-center gap-3">
          <p className="text-sm text-slate-700">
            <span className="font-semibold text-slate-900">{formatCount(total)}</span> requests
          </p>
          {total > 0 && (
            <ChartDownloads
              filename={id}
              title={title}
              frame={frame}
              testId={id}
              csv={() =>
                toCsv(
                  ["start", ...SERIES.map((s) => s.key), "total"],
                  buckets.map((b) => [b.start, ...SERIES.map((s) => b[s.key]), b.total]),
                )
              }
            />
          )}
        </div>
      </div>
      {total === 0 ? (
        <div className="mt-4 flex h-56 items-center justify-center rounded-md border border-dashed border-slate-300 text-center text-sm text-slate-600">
          <p className="max-w-xs">
            No requests in this period. Call the API with this key; usage appears here within a few seconds.
          </p>
        </div>
      ) : (
        <div ref={frame} className="mt-4 h-64" aria-hidden="true">
          <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 256 }}>
            <BarChart accessibilityLayer={false} data={rows} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
              <XAxis
                dataKey="label"
                tick={{ fontSize: 12, fill: "#475569" }}
                tickLine={false}
                axisLine={{ stroke: "#cbd5e1" }}
                interval="preserveStartEnd"
                minTickGap={12}
              />
              <YAxis
                allowDecimals={false}
                tick={{ fontSize: 12, fill: "#475569" }}
                tickLine={false}
                axisLine={false}
                width={48}
              />
              <Tooltip
                cursor={{ fill: "#f1f5f9" }}
                labelFormatter={(_, payload) => {
                  const start = payload?.[0]?.payload?.start as string | undefined;
                  return start
                    ? `${granularity === "hour" ? `${start.slice(0, 10)} ${formatHour(start)}` : start.slice(0, 10)} UTC`
                    : "";
                }}
              />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {SERIES.map((s) => (
                <Bar
                  key={s.key}
                  dataKey={s.key}
                  name={s.label}
                  stackId="requests"
                  fill={s.color}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer text-slate-600 hover:text-slate-900">Show the numbers as a table</summary>
        <div className="mt-2 max-h-72 overflow-auto" tabIndex={0} role="region" aria-label={`${title}: the numbers`}>
          <table className="min-w-full text-right text-xs" data-testid={`${id}-table`}>
            <caption className="sr-only">{title}, requests by status class</caption>
            <thead className="sticky top-0 bg-white text-slate-500">
              <tr>
                <th scope="col" className="px-2 py-1 text-left">
                  {granularity === "hour" ? "Hour (UTC)" : "Day (UTC)"}
                </th>
                {SERIES.map((s) => (
                  <th key={s.key} scope="col" className="px-2 py-1">
                    {s.label}
                  </th>
                ))}
                <th scope="col" className="px-2 py-1">
                  Total
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 text-slate-700">
              {buckets.map((b) => (
                <tr key={b.start}>
                  <th scope="row" className="px-2 py-1 text-left font-normal whitespace-nowrap">
                    {granularity === "hour" ? `${b.start.slice(0, 10)} ${formatHour(b.start)}` : b.start.slice(0, 10)}
                  </th>
                  {SERIES.map((s) => (
                    <td key={s.key} className="px-2 py-1">
                      {formatCount(b[s.key])}
                    </td>
                  ))}
                  <td className="px-2 py-1 font-medium">{formatCount(b.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
