import type { Metadata } from "next";
import Link from "next/link";
import { BackfillNotice } from "@/components/site/backfill-notice";
import { DataTable } from "@/components/site/data-table";
import { ageText, FreshnessBadge } from "@/components/site/freshness-badge";
import { StatusBadge } from "@/components/site/badges";
import { IncidentList } from "@/components/site/incident-list";
import { UtcTime } from "@/components/site/utc-time";
import { config } from "@/lib/config";
import { statusView, type StaleQuote } from "@/lib/data/status";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Status",
  description:
    "Data freshness of every index, volatility series and venue, the last computed hour and current incidents.",
  alternates: {
    types: { "application/atom+xml": [{ url: "/status/incidents.atom", title: "PM Benchmarks incidents" }] },
  },
};

export default async function StatusPage() {
  const view = await statusView(root().read, config().ENGINE_TICK_SECONDS);
  return (
    <article className="space-y-8" data-testid="status-page">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Status</h1>
        <p className="max-w-3xl text-slate-700">
          How current the published data is, read from the database when you load this page (
          <UtcTime value={view.generatedAt} />
          ). Past changes to methodology, catalog and values are in the <Link href="/changelog">changelog</Link>, past
          incidents in the <Link href="/status/history">incident history</Link>; the same facts as JSON at{" "}
          {/* A JSON document, not a page: a plain link, so the router does not prefetch it as one. */}
          <a href="/status.json">/status.json</a>. Subscribe to incidents:{" "}
          <a href="/status/incidents.atom">Atom feed</a>.
        </p>
      </header>

      <BackfillNotice what="The freshness figures" />

      <section aria-labelledby="engine-heading" className="grid gap-4 md:grid-cols-2">
        <div className="rounded-lg border border-slate-200 p-5 shadow-sm">
          <h2 id="engine-heading" className="text-sm font-medium text-slate-700">
            Last computed hour
          </h2>
          <p
            className="mt-1 text-2xl font-semibold text-slate-900"
            data-testid="last-computed-hour"
            data-value={view.lastComputedHour ?? ""}
          >
            {view.lastComputedHour ? <UtcTime value={view.lastComputedHour} /> : "none yet"}
          </p>
          <p className="mt-1 text-sm text-slate-700">
            {ageText(view.engineAgeSeconds)} ago; the engine computes a new hour every{" "}
            {Math.round(view.tickSeconds / 60)} minutes.
          </p>
        </div>
        <div className="rounded-lg border border-slate-200 p-5 shadow-sm">
          <h2 className="text-sm font-medium text-slate-700">Notices on the newest values</h2>
          {view.notices.length === 0 ? (
            <p className="mt-1 text-sm text-slate-700" data-testid="no-notices">
              None: every newest value is published with fresh inputs.
            </p>
          ) : (
            <ul className="mt-2 space-y-2 text-sm" data-testid="notices">
              {view.notices.map((i, n) => (
                <li key={n} data-testid="notice" data-subject={i.subject}>
                  <span className="font-mono text-xs">{i.subject}</span>{" "}
                  <span className="font-medium text-slate-900">{i.title}</span>
                  <span className="block text-slate-700">{i.detail}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>

      <section
        aria-labelledby="incidents-heading"
        className="space-y-3 rounded-lg border border-slate-200 p-5 shadow-sm"
      >
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="incidents-heading" className="text-xl font-semibold">
            Current incidents
          </h2>
          <Link href="/status/history" className="text-sm">
            Incident history
          </Link>
        </div>
        {view.incidents.length === 0 ? (
          <p className="text-lg font-semibold text-emerald-800" data-testid="no-incidents">
            None: every venue, series and index is current.
          </p>
        ) : (
          <IncidentList incidents={view.incidents} />
        )}
        {view.resolved.length > 0 && (
          <details className="text-sm" data-testid="resolved-incidents">
            <summary className="cursor-pointer text-slate-700">
              Resolved in the last 30 days ({view.resolved.length})
            </summary>
            <div className="mt-2">
              <IncidentList incidents={view.resolved} testId="resolved-incident" />
            </div>
          </details>
        )}
      </section>

      <section aria-labelledby="venues-heading" className="space-y-3">
        <h2 id="venues-heading" className="text-xl font-semibold">
          Venues
        </h2>
        <DataTable
          caption="Each venue in use: its last successful read, markets stale now (index constituents and volatility legs) and its last error"
          columns={[
            { label: "Venue" },
            { label: "Last successful read" },
            { label: "Markets stale now", numeric: true },
            { label: "Last error" },
            { label: "State" },
          ]}
          testId="status-venues"
        >
          {view.venues.map((v) => (
            <tr
              key={v.venue}
              className="border-t border-slate-100"
              data-testid="status-venue"
              data-venue={v.venue}
              data-last-ok={v.lastOkAt ?? ""}
              data-failing={v.failing ? "1" : "0"}
            >
              <th scope="row" className="px-3 py-2 text-left font-normal">
                {v.label}
              </th>
              <td className="px-3 py-2">{v.lastOkAt ? <UtcTime value={v.lastOkAt} /> : "never"}</td>
              <td className="px-3 py-2 text-right tabular-nums">{v.staleMarkets}</td>
              <td className="px-3 py-2 text-slate-700">
                {v.lastError ? (
                  <>
                    <UtcTime value={v.lastErrorAt ?? ""} />: <span className="break-all">{v.lastError}</span>
                  </>
                ) : (
                  "none"
                )}
              </td>
              <td className="px-3 py-2">
                {v.failing ? (
                  <span className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-semibold text-rose-900">failing</span>
                ) : (
                  <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-semibold text-emerald-800">
                    reading
                  </span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>

      <section aria-labelledby="indices-heading" className="space-y-3">
        <h2 id="indices-heading" className="text-xl font-semibold">
          Indices
        </h2>
        <DataTable
          caption="Freshness of each index's latest level"
          columns={[
            { label: "Index" },
            { label: "Status" },
            { label: "Last level" },
            { label: "Age" },
            { label: "Stale constituents", numeric: true },
            { label: "Freshness" },
          ]}
          testId="status-indices"
        >
          {view.indices.map((i) => (
            <tr
              key={i.ticker}
              className="border-t border-slate-100"
              data-testid="status-index"
              data-ticker={i.ticker}
              data-last={i.lastLevelAt ?? ""}
            >
              <th scope="row" className="px-3 py-2 text-left font-normal">
                <Link href={`/indices/${i.ticker}`} className="font-mono">
                  {i.ticker}
                </Link>
              </th>
              <td className="px-3 py-2">
                <StatusBadge status={i.publicStatus} />
              </td>
              <td className="px-3 py-2">{i.lastLevelAt ? <UtcTime value={i.lastLevelAt} /> : "none"}</td>
              <td className="px-3 py-2 whitespace-nowrap">{ageText(i.ageSeconds)}</td>
              <td className="px-3 py-2 text-right tabular-nums">
                {i.staleMarkets} of {i.totalMarkets}
              </td>
              <td className="px-3 py-2">
                <FreshnessBadge freshness={i.freshness} />
              </td>
            </tr>
          ))}
        </DataTable>
      </section>

      <section aria-labelledby="series-heading" className="space-y-3">
        <h2 id="series-heading" className="text-xl font-semibold">
          Volatility series
        </h2>
        <DataTable
          caption="Freshness of each volatility series"
          columns={[
            { label: "Series" },
            { label: "Last computed" },
            { label: "Newest state" },
            { label: "Last published" },
            { label: "Age" },
            { label: "Freshness" },
          ]}
          testId="status-series"
        >
          {view.series.map((s) => (
            <tr
              key={s.ticker}
              className="border-t border-slate-100"
              data-testid="status-series-row"
              data-ticker={s.ticker}
              data-last={s.lastComputedAt ?? ""}
            >
              <th scope="row" className="px-3 py-2 text-left font-normal">
                <Link href={`/volatility/${s.slug}`} className="font-mono">
                  {s.ticker}
                </Link>
              </th>
              <td className="px-3 py-2">{s.lastComputedAt ? <UtcTime value={s.lastComputedAt} /> : "none"}</td>
              <td className="px-3 py-2">
                {s.publicationState ? (
                  <StatusBadge status={s.publicationState === "withheld" ? "withheld" : (s.status ?? "ok")} />
                ) : (
                  "none"
                )}
              </td>
              <td className="px-3 py-2">{s.lastPublishedAt ? <UtcTime value={s.lastPublishedAt} /> : "none"}</td>
              <td className="px-3 py-2 whitespace-nowrap">{ageText(s.ageSeconds)}</td>
              <td className="px-3 py-2">
                <FreshnessBadge freshness={s.freshness} />
              </td>
            </tr>
          ))}
        </DataTable>
      </section>

      <section aria-labelledby="markets-heading" className="space-y-3">
        <h2 id="markets-heading" className="text-xl font-semibold">
          Stale markets
        </h2>
        {view.staleMarkets.length === 0 && view.staleLegs.length === 0 ? (
          <p className="text-sm text-slate-700" data-testid="no-stale-markets">
            Every open constituent of an active index and every leg of a listed volatility series had a quote within its
            limit at the last computed hour.
          </p>
        ) : (
          <DataTable
            caption="Index constituents and volatility legs whose newest quote is older than their limit (the index's staleness limit, the series' snapshot age gate)"
            columns={[{ label: "Index or series" }, { label: "Market" }, { label: "Newest quote" }, { label: "Limit" }]}
            testId="stale-markets"
          >
            {view.staleMarkets.map((m) => (
              <StaleQuoteRow
                key={`${m.indexTicker}:${m.conditionId}`}
                subject={m.indexTicker}
                quote={m}
                testId="stale-market"
              />
            ))}
            {view.staleLegs.map((l) => (
              <StaleQuoteRow
                key={`${l.seriesTicker}:${l.conditionId}`}
                subject={l.seriesTicker}
                quote={l}
                testId="stale-leg"
                series={l.seriesTicker}
              />
            ))}
          </DataTable>
        )}
      </section>
    </article>
  );
}

/** One stale market: the index or series it belongs to, the market, its newest quote, the limit. */
function StaleQuoteRow({
  subject,
  quote,
  testId,
  series,
}: {
  subject: string;
  quote: StaleQuote;
  testId: string;
  series?: string;
}) {
  return (
    <tr className="border-t border-slate-100" data-testid={testId} data-series={series}>
      <td className="px-3 py-2 font-mono">{subject}</td>
      <td className="px-3 py-2">{quote.label}</td>
      <td className="px-3 py-2">{quote.lastSnapshotAt ? <UtcTime value={quote.lastSnapshotAt} /> : "none"}</td>
      <td className="px-3 py-2 whitespace-nowrap">{limitText(quote.limitSeconds)}</td>
    </tr>
  );
}

/** A staleness limit as hours, or minutes below an hour (a 60 s gate is not "0 h"). */
function limitText(seconds: number): string {
  return seconds >= 3600 ? `${Math.round(seconds / 3600)} h` : `${Math.max(1, Math.round(seconds / 60))} min`;
}
