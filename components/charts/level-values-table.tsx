"use client";

import { useMemo, useState } from "react";
import { DataTable, STICKY_HEAD } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";
import { type PackedLevels, unpackLevels } from "@/lib/site/level-series";

/**
 * The chart's levels as a table, folded under it and built in the browser when opened, so a
 * 90-day hourly page does not carry 2,160 rows of HTML (and their copy in the page's payload).
 */
export function LevelValuesTable({ series, testId }: { series: PackedLevels; testId: string }) {
  const [open, setOpen] = useState(false);
  const points = useMemo(() => (open ? unpackLevels(series) : []), [open, series]);
  return (
    <details className="mt-3 text-sm" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-slate-700">Levels as a table</summary>
      {open && (
        <DataTable
          caption="Index levels shown in the chart"
          columns={[
            { label: "Time (UTC)" },
            { label: "Level", numeric: true },
            { label: "Stale" },
            { label: "Revision", numeric: true },
          ]}
          testId={testId}
          frameClassName="relative mt-2 max-h-96 overflow-auto rounded border border-slate-200"
          headClassName={STICKY_HEAD}
          dense
        >
          {points.map((p) => (
            <tr key={p.t} className="border-t border-slate-100" data-t={p.t} data-value={p.indexLevel}>
              <td className="px-3 py-1">
                <UtcTime value={p.t} />
              </td>
              <td className="px-3 py-1 text-right font-mono tabular-nums">{p.indexLevel}</td>
              <td className="px-3 py-1">{p.stale ? "yes" : "no"}</td>
              <td className="px-3 py-1 text-right">{p.revision}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </details>
  );
}
