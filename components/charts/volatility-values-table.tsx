"use client";

import { useMemo, useState } from "react";
import { DataTable, STICKY_HEAD } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";
import { type PackedVolatilitySeries, unpackVolatility } from "@/lib/site/volatility-series";

/**
 * The chart's values as a table, folded under it and built in the browser when opened (from
 * the same packed series as the chart), so the page's HTML does not carry a row per hour.
 */
export function VolatilityValuesTable({
  series,
  caption,
  testId,
}: {
  series: PackedVolatilitySeries;
  caption: string;
  testId: string;
}) {
  const [open, setOpen] = useState(false);
  const points = useMemo(() => (open ? unpackVolatility(series) : []), [open, series]);
  return (
    <details className="mt-3 text-sm" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-slate-700">Values as a table</summary>
      {open && (
        <DataTable
          caption={caption}
          columns={[
            { label: "Time (UTC)" },
            { label: "Points", numeric: true },
            { label: "Band", numeric: true },
            { label: "Frozen-inception", numeric: true },
            { label: "Status" },
          ]}
          testId={testId}
          frameClassName="relative mt-2 max-h-96 overflow-auto rounded border border-slate-200"
          headClassName={STICKY_HEAD}
          dense
        >
          {points.map((p) => (
            <tr key={p.t} className="border-t border-slate-100" data-t={p.t} data-value={String(p.headlinePts)}>
              <td className="px-3 py-1">
                <UtcTime value={p.t} />
              </td>
              <td className="px-3 py-1 text-right font-mono tabular-nums">{p.headlinePts}</td>
              <td className="px-3 py-1 text-right font-mono whitespace-nowrap tabular-nums">
                {p.bandLoPts} to {p.bandHiPts}
              </td>
              <td className="px-3 py-1 text-right font-mono tabular-nums">{p.cfHeadlinePts ?? "—"}</td>
              <td className="px-3 py-1 whitespace-nowrap">
                {p.status}
                {p.gates !== "" && <span className="text-slate-600"> ({p.gates})</span>}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </details>
  );
}
