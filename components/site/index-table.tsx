import Link from "next/link";
import { StaleBadge, StatusBadge } from "@/components/site/badges";
import { Change } from "@/components/site/change";
import { UtcTime } from "@/components/site/utc-time";
import type { IndexRowView } from "@/lib/site/index-views";

/** The index catalog with latest levels: the exact decimal strings of GET .../latest. */
export function IndexTable({ rows, compact = false }: { rows: IndexRowView[]; compact?: boolean }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-slate-200" data-testid="index-table-scroll">
      <table className="w-full border-collapse text-left text-sm" data-testid="index-table">
        <caption className="sr-only">Indices with their latest level{compact ? "" : ", changes over one and thirty days, status and last computation"}</caption>
        <thead className="bg-slate-50 text-slate-700">
          <tr>
            <th scope="col" className="px-3 py-2 font-semibold">
              Index
            </th>
            <th scope="col" className="px-3 py-2 text-right font-semibold">
              Latest level
            </th>
            {!compact && (
              <>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  1 day
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  30 days
                </th>
              </>
            )}
            <th scope="col" className="px-3 py-2 font-semibold">
              Status
            </th>
            {!compact && (
              <th scope="col" className="px-3 py-2 font-semibold">
                Last computed
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ entry, latest, change1d, change30d }) => (
            <tr key={entry.ticker} data-testid="index-row" data-ticker={entry.ticker} className="border-t border-slate-100 align-top">
              <td className="min-w-44 px-3 py-2">
                <Link href={`/indices/${entry.ticker}`} className="font-medium">
                  {entry.name}
                </Link>
                <div className="font-mono text-xs text-slate-500">{entry.ticker}</div>
              </td>
              <td className="px-3 py-2 text-right">
                {latest ? (
                  <span className="font-mono whitespace-nowrap text-slate-900 tabular-nums" data-testid="index-level" data-value={latest.indexLevel}>
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
              <td className="px-3 py-2">
                <span className="flex flex-wrap gap-1">
                  <StatusBadge status={entry.publicStatus} testId="index-status" />
                  {entry.stale && <StaleBadge />}
                </span>
              </td>
              {!compact && (
                <td className="px-3 py-2 text-slate-600">{entry.lastComputedAt ? <UtcTime value={entry.lastComputedAt} /> : "—"}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
