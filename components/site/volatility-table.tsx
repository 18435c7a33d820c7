import { StatusBadge } from "@/components/site/badges";
import { CatalogNameCell } from "@/components/site/catalog-name-cell";
import { CATALOG_HEAD, DataTable } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";
import type { VolatilityCatalogEntry } from "@/lib/data/volatility";
import { headlineText } from "@/lib/site/format";

/** The volatility catalog (GET /v1/volatility): each headline with its tenor, never without. */
export function VolatilityTable({ series, compact = false }: { series: VolatilityCatalogEntry[]; compact?: boolean }) {
  return (
    <DataTable
      caption="Volatility series with their latest published headline and its tenor"
      columns={[
        { label: "Series" },
        { label: "Latest headline", numeric: true },
        { label: "Status", className: compact ? "hidden sm:table-cell" : undefined },
        ...(compact ? [] : [{ label: "Last computed" }]),
      ]}
      testId="volatility-table"
      headClassName={CATALOG_HEAD}
    >
      {series.map((s) => (
        <tr
          key={s.ticker}
          data-testid="volatility-row"
          data-ticker={s.ticker}
          data-slug={s.slug}
          className="border-t border-slate-100 align-top"
        >
          <CatalogNameCell href={`/volatility/${s.slug}`} name={s.name} ticker={s.ticker} compact={compact}>
            {!compact && <p className="mt-1 max-w-md text-xs text-slate-600">{s.description}</p>}
            {compact && (
              <span className="mt-1 flex sm:hidden" data-testid="volatility-status-folded">
                <StatusBadge status={s.status} />
              </span>
            )}
          </CatalogNameCell>
          <td className="px-3 py-2 text-right whitespace-nowrap">
            <span
              className="font-mono text-slate-900 tabular-nums"
              data-testid="volatility-headline"
              data-value={String(s.headlinePts)}
              data-tenor-days={s.headlineTenorDays}
            >
              {headlineText(s.headlinePts, s.headlineTenorDays)}
            </span>
          </td>
          <td className={`px-3 py-2${compact ? " hidden sm:table-cell" : ""}`}>
            <StatusBadge status={s.status} />
          </td>
          {!compact && (
            <td className="px-3 py-2 text-slate-600">
              <UtcTime value={s.lastComputedAt} />
            </td>
          )}
        </tr>
      ))}
    </DataTable>
  );
}
