import type { ReactNode } from "react";
import { type DataColumn, DataTable, STICKY_HEAD } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";

/**
 * The points of a chart as a table, folded under it: one row per point, its time first, and
 * `data-t` / `data-value` carrying the API's exact values.
 */
export function ChartValuesTable<P extends { t: string }>({
  summary,
  caption,
  testId,
  columns,
  points,
  value,
  cells,
}: {
  summary: string;
  caption: ReactNode;
  testId: string;
  /** the columns after the time */
  columns: readonly DataColumn[];
  points: readonly P[];
  value: (point: P) => string;
  /** the cells after the time */
  cells: (point: P) => ReactNode;
}) {
  return (
    <details className="mt-3 text-sm">
      <summary className="cursor-pointer text-slate-700">{summary}</summary>
      <DataTable
        caption={caption}
        columns={[{ label: "Time (UTC)" }, ...columns]}
        testId={testId}
        frameClassName="relative mt-2 max-h-96 overflow-auto rounded border border-slate-200"
        headClassName={STICKY_HEAD}
        dense
      >
        {points.map((p) => (
          <tr key={p.t} className="border-t border-slate-100" data-t={p.t} data-value={value(p)}>
            <td className="px-3 py-1">
              <UtcTime value={p.t} />
            </td>
            {cells(p)}
          </tr>
        ))}
      </DataTable>
    </details>
  );
}
