import Link from "next/link";
import { ForecastRecordChart } from "@/components/charts/forecast-record-chart";
import { DataTable } from "@/components/site/data-table";
import { UtcTime } from "@/components/site/utc-time";
import type { ForecastRecordView } from "@/lib/data/forecast-record";
import { tenorText } from "@/lib/site/format";

const ratio = (x: number | null) => (x === null ? "—" : x.toFixed(2));

/** The series' forecast record: realized against expected move per closed window, with the calibration figures. */
export function ForecastRecord({ record, ticker }: { record: ForecastRecordView | null; ticker: string }) {
  const tenors = record?.tenors ?? [];
  const total = tenors.reduce((n, t) => n + t.windows, 0);
  return (
    <section aria-labelledby="record-heading" className="space-y-3" data-testid="forecast-record" data-windows={total}>
      <h2 id="record-heading" className="text-xl font-semibold">
        Forecast record
      </h2>
      <p className="max-w-3xl text-sm text-slate-700">
        Every window that has closed: the expected move published at its start and the move the partition made over it,
        both in points. A calibrated measure has a variance ratio (mean of realized² / expected²) of 1; the median of
        realized / expected is below 1 for threshold partitions, whose probabilities mostly drift and sometimes jump (
        <Link href="/docs/methodology/forecast-record">forecast record</Link>). Windows start every hour and overlap;
        the independent windows do not.
      </p>
      {total === 0 ? (
        <p className="text-sm text-slate-600" data-testid="forecast-record-empty">
          No window has closed yet: the first closes one tenor after the first published value.
        </p>
      ) : (
        <div className="grid gap-4 xl:grid-cols-2">
          <figure className="rounded-lg border border-slate-200 p-3">
            <ForecastRecordChart
              filename={`${ticker}-forecast-record`}
              series={tenors.map((t) => ({ tenorDays: t.tenorDays, points: t.daily }))}
              label={`Realized against expected move, windows starting at 00:00 UTC: ${tenors.map((t) => `${tenorText(t.tenorDays)} variance ratio ${ratio(t.varianceRatio)}`).join(", ")}`}
            />
            <figcaption className="mt-1 text-xs text-slate-600">
              One dot per window starting at 00:00 UTC; dashed: realized = expected.
              {record?.through && (
                <>
                  {" "}
                  Through <UtcTime value={record.through} />.
                </>
              )}
            </figcaption>
          </figure>
          <DataTable
            caption="Forecast record per tenor"
            columns={[
              { label: "Tenor" },
              { label: "Windows", numeric: true },
              { label: "Independent", numeric: true },
              { label: "Median realized / expected", numeric: true },
              { label: "Variance ratio", numeric: true },
              { label: "Independent windows' ratio", numeric: true },
            ]}
            testId="forecast-record-table"
            frameClassName="relative overflow-x-auto rounded-lg border border-slate-200 self-start"
          >
            {tenors.map((t) => (
              <tr
                key={t.tenorDays}
                className="border-t border-slate-100"
                data-tenor-days={t.tenorDays}
                data-windows={t.windows}
                data-independent={t.independentWindows}
                data-variance-ratio={t.varianceRatio ?? ""}
              >
                <th scope="row" className="px-3 py-2 font-normal whitespace-nowrap">
                  {tenorText(t.tenorDays)}
                </th>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{t.windows}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{t.independentWindows}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{ratio(t.medianRatio)}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{ratio(t.varianceRatio)}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{ratio(t.independentVarianceRatio)}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </section>
  );
}
