import Link from "next/link";
import { StatusBadge } from "@/components/site/badges";
import { UtcTime } from "@/components/site/utc-time";
import type { VolatilityCatalogEntry } from "@/lib/data/volatility";
import { headlineText } from "@/lib/site/format";

/** The volatility catalog (GET /v1/volatility): each headline with its tenor, never without. */
export function VolatilityTable({ series, compact = false }: { series: VolatilityCatalogEntry[]; compact?: boolean }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full border-collapse text-left text-sm" data-testid="volatility-table">
        <caption className="sr-only">Volatility series with their latest published headline and its tenor</caption>
        <thead className="bg-slate-50 text-slate-700">
          <tr>
            <th scope="col" className="px-3 py-2 font-semibold">
              Series
            </th>
            <th scope="col" className="px-3 py-2 text-right font-semibold">
              Latest headline
            </th>
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
          {series.map((s) => (
            <tr key={s.ticker} data-testid="volatility-row" data-ticker={s.ticker} data-slug={s.slug} className="border-t border-slate-100 align-top">
              <td className="min-w-44 px-3 py-2">
                <Link href={`/volatility/${s.slug}`} className="font-medium">
                  {s.name}
                </Link>
                <div className="font-mono text-xs text-slate-500">{s.ticker}</div>
                {!compact && <p className="mt-1 max-w-md text-xs text-slate-600">{s.description}</p>}
              </td>
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
              <td className="px-3 py-2">
                <StatusBadge status={s.status} />
              </td>
              {!compact && (
                <td className="px-3 py-2 text-slate-600">
                  <UtcTime value={s.lastComputedAt} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
