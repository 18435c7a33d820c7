import { StaleBadge, StatusBadge } from "@/components/site/badges";
import { CatalogNameCell } from "@/components/site/catalog-name-cell";
import { Change } from "@/components/site/change";
import { CATALOG_HEAD, DataTable } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";
import type { IndexRowView } from "@/lib/site/index-views";

/** The index catalog with latest levels: the exact decimal strings of GET .../latest. */
export function IndexTable({ rows, compact = false }: { rows: IndexRowView[]; compact?: boolean }) {
  return (
    <DataTable
      caption={
        <>
          Indices with their latest level
          {compact ? "" : ", changes over one and thirty days, status and last computation"}
        </>
      }
      columns={[
        { label: "Index" },
        { label: "Latest level", numeric: true },
        ...(compact
          ? []
          : [
              { label: "1 day", numeric: true },
              { label: "30 days", numeric: true },
            ]),
        // compact (the home page): on a phone the status sits under the name, so no column is cut off
        { label: "Status", className: compact ? "hidden sm:table-cell" : undefined },
        ...(compact ? [] : [{ label: "Last computed" }]),
      ]}
      testId="index-table"
      frameTestId="index-table-scroll"
      headClassName={CATALOG_HEAD}
    >
      {rows.map(({ entry, latest, change1d, change30d }) => (
        <tr
          key={entry.ticker}
          data-testid="index-row"
          data-ticker={entry.ticker}
          className="border-t border-slate-100 align-top"
        >
          <CatalogNameCell href={`/indices/${entry.ticker}`} name={entry.name} ticker={entry.ticker} compact={compact}>
            {compact && (
              <span className="mt-1 flex flex-wrap gap-1 sm:hidden" data-testid="index-status-folded">
                <StatusBadge status={entry.publicStatus} />
                {entry.stale && <StaleBadge />}
              </span>
            )}
          </CatalogNameCell>
          <td className="px-3 py-2 text-right">
            {latest ? (
              <span
                className="font-mono whitespace-nowrap text-slate-900 tabular-nums"
                data-testid="index-level"
                data-value={latest.indexLevel}
              >
                {latest.indexLevel}
              </span>
            ) : (
              <span className="text-slate-400">—</span>
            )}
          </td>
          {!compact && (
            <>
              <td className="px-3 py-2 text-right whitespace-nowrap">
                <Change change={change1d} />
              </td>
              <td className="px-3 py-2 text-right whitespace-nowrap">
                <Change change={change30d} />
              </td>
            </>
          )}
          <td className={`px-3 py-2${compact ? " hidden sm:table-cell" : ""}`}>
            <span className="flex flex-wrap gap-1">
              <StatusBadge status={entry.publicStatus} testId="index-status" />
              {entry.stale && <StaleBadge />}
            </span>
          </td>
          {!compact && (
            <td className="px-3 py-2 text-slate-600">
              {entry.lastComputedAt ? <UtcTime value={entry.lastComputedAt} /> : "—"}
            </td>
          )}
        </tr>
      ))}
    </DataTable>
  );
}
