import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { TermStructureChart } from "@/components/charts/term-structure-chart";
import { VolatilityHistoryChart } from "@/components/charts/volatility-history-chart";
import { VolatilityValuesTable } from "@/components/charts/volatility-values-table";
import { ApiCall } from "@/components/site/api-call";
import { StatusBadge } from "@/components/site/badges";
import { DataTable } from "@/components/site/data-table";
import { BackfillNotice, BackfillPending, backfilling } from "@/components/site/backfill-notice";
import { DetailHeader } from "@/components/site/detail-header";
import { Fact } from "@/components/site/fact";
import { GateFlags } from "@/components/site/gate-flags";
import { RangeLinks } from "@/components/site/range-links";
import { UtcTime } from "@/components/site/utc-time";
import { volatilityLatest } from "@/lib/data/volatility";
import { forecastRecord } from "@/lib/data/forecast-record";
import { ForecastRecord } from "@/components/site/forecast-record";
import { entryLaunch } from "@/lib/data/launches";
import { BackCalculatedLegend, LaunchFacts } from "@/components/site/back-calculated";
import { formatCountOf, formatPts, formatShare, tenorText } from "@/lib/site/format";
import { config } from "@/lib/config";
import { STATUS_MEANING } from "@/lib/site/gates";
import { chartHref, parseRange, RANGES } from "@/lib/site/range";
import { counterfactualTenor, termStructure } from "@/lib/site/volatility-value";
import { volatilityPageView, volatilitySlug } from "@/lib/site/volatility-views";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const latest = await volatilityLatest(root().read, (await params).slug, "tickerOrSlug");
  if (!latest) return { title: "Not found" };
  return { title: `${latest.series.name} (${latest.series.ticker})`, description: latest.series.description };
}

export default async function VolatilitySeriesPage({ params, searchParams }: Props) {
  const [{ slug }, query] = await Promise.all([params, searchParams]);
  const range = parseRange(query.range);
  const canonical = await volatilitySlug(root().read, slug);
  if (!canonical && backfilling()) return <BackfillPending what={`/volatility/${slug}`} />;
  if (!canonical) notFound();
  // One address per series: a ticker (or a differently cased slug) redirects to the slug.
  if (decodeURIComponent(slug) !== canonical)
    redirect(query.range === undefined ? `/volatility/${canonical}` : chartHref(`/volatility/${canonical}`, { range }));
  const view = await volatilityPageView(root().read, canonical, range);
  if (!view && backfilling()) return <BackfillPending what={`/volatility/${canonical}`} />;
  if (!view) notFound();
  const { series, shown, newest, points } = view;
  const [launch, record] = await Promise.all([
    entryLaunch(root().read, "volatility", series.ticker),
    forecastRecord(root().read, series.ticker),
  ]);
  const shaded = launch !== null && points.length > 0 && (points[0]?.t ?? "~") < launch.launchAt.slice(0, 19);

  const path = `/volatility/${series.slug}`;
  const tenors = termStructure(shown);
  const cf = shown.counterfactual;
  const cfTenor = counterfactualTenor(cf, shown.headlineTenorDays);
  const fbvTier = shown.labels.tier?.R ?? null;
  const rangeLabel = `${RANGES[range]} days`;

  return (
    <article className="space-y-8" data-testid="volatility-page" data-ticker={series.ticker} data-slug={series.slug}>
      <DetailHeader
        catalog={{ href: "/volatility", label: "Volatility" }}
        crumb={series.slug}
        name={series.name}
        ticker={series.ticker}
        description={series.description}
      >
        <StatusBadge status={shown.status} testId="volatility-status" />
        <span className="text-slate-500">
          {series.productFamily} · {series.category}
        </span>
      </DetailHeader>
      <BackfillNotice what="The headline value, the term structure and the history" />

      <section aria-labelledby="headline-heading" className="grid gap-4 md:grid-cols-2">
        <div className="rounded-lg border border-slate-200 p-5 shadow-sm">
          <h2 id="headline-heading" className="text-sm font-medium text-slate-600">
            Latest published value
          </h2>
          <p
            className="mt-1 text-3xl font-semibold text-slate-900"
            data-testid="volatility-headline"
            data-value={String(shown.headlinePts)}
            data-tenor-days={shown.headlineTenorDays}
            data-computed-at={shown.computedAt}
            data-source={view.source}
            data-publication-state={view.publicationState}
          >
            <span className="font-mono tabular-nums">{formatPts(shown.headlinePts)}</span> pts{" "}
            <span className="text-xl font-medium text-slate-700">over {tenorText(shown.headlineTenorDays)}</span>
          </p>
          <p className="mt-1 text-sm text-slate-600">
            Exact value <span className="font-mono">{shown.headlinePts}</span> {series.units}; computed{" "}
            <UtcTime value={shown.computedAt} />
          </p>
          <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
            <div>
              <dt className="text-slate-500">Uncertainty band</dt>
              <dd className="font-mono tabular-nums" data-testid="volatility-band">
                {formatPts(shown.bandLoPts)} to {formatPts(shown.bandHiPts)}
              </dd>
            </div>
            <div>
              <dt className="text-slate-500">Change since previous value</dt>
              <dd className="font-mono tabular-nums">
                {shown.attrDeltaHeadlinePts >= 0 ? "+" : ""}
                {formatPts(shown.attrDeltaHeadlinePts)} pts
              </dd>
            </div>
          </dl>
        </div>
        <div className="rounded-lg border border-slate-200 bg-slate-50 p-5">
          <h2 className="text-sm font-medium text-slate-600">Frozen-inception analytic (counterfactual)</h2>
          <p
            className="mt-1 text-3xl font-semibold text-slate-700"
            data-testid="volatility-counterfactual"
            data-value={String(cf.headlinePts)}
            data-tenor-days={cfTenor}
          >
            <span className="font-mono tabular-nums">{formatPts(cf.headlinePts)}</span> pts{" "}
            <span className="text-xl font-medium text-slate-600">over {tenorText(cfTenor)}</span>
          </p>
          <p className="mt-2 text-sm text-slate-700">
            The same value recomputed with the configuration frozen at inception (legs, tenors, de-vig and calendar
            clock). It equals the live value until the definition, the composition or the clock changes; the gap shows
            what those changes contribute (
            <Link href="/docs/methodology/band-and-gates#counterfactual">counterfactual</Link>).
          </p>
          <p className="mt-2 text-xs break-all text-slate-500">
            Anchor <span className="font-mono">{cf.anchorFingerprint.slice(0, 16)}</span>
            {typeof cf.anchorAt === "string" && (
              <>
                {" "}
                set <UtcTime value={cf.anchorAt} />
              </>
            )}
          </p>
        </div>
      </section>

      <section aria-labelledby="definition-heading" className="space-y-2">
        <h2 id="definition-heading" className="text-xl font-semibold">
          Definition
        </h2>
        <blockquote
          className="border-l-4 border-brand bg-slate-50 px-4 py-3 text-slate-800"
          data-testid="definition-line"
        >
          {series.definitionLine}
        </blockquote>
        <p className="text-sm text-slate-600">
          Quote this line with any value you publish. Values are in {series.units}.
        </p>
      </section>

      <section aria-labelledby="status-heading" className="space-y-3">
        <h2 id="status-heading" className="text-xl font-semibold">
          Status and publication checks
        </h2>
        <p className="flex flex-wrap items-center gap-2 text-sm text-slate-700" data-testid="status-meaning">
          <StatusBadge status={shown.status} />
          <span>{STATUS_MEANING[shown.status] ?? `Status ${shown.status}.`}</span>
        </p>
        <GateFlags flags={shown.gateFlags} testId="gate-flags" />
        {view.source === "published" && (
          <div
            className="rounded-lg border border-rose-200 bg-rose-50 p-4 text-sm text-slate-800"
            data-testid="withheld-notice"
            role="note"
          >
            <p className="font-semibold text-rose-800">
              The newest computation, <UtcTime value={newest.computedAt} />, was withheld ({newest.status}).
            </p>
            <p className="mt-1">
              It did not clear its publication checks, so the value above is the last one that did.
            </p>
            <GateFlags flags={newest.gateFlags} testId="withheld-gate-flags" />
          </div>
        )}
      </section>

      <section aria-labelledby="term-heading" className="space-y-3">
        <h2 id="term-heading" className="text-xl font-semibold">
          Term structure
        </h2>
        <div className="grid gap-4 md:grid-cols-2">
          <figure className="rounded-lg border border-slate-200 p-3">
            <TermStructureChart
              filename={`${series.ticker}-term-structure`}
              ticker={series.ticker}
              seriesName={`${series.ticker}: ${series.name}`}
              computedAt={shown.computedAt}
              attribution={config().ATTRIBUTION}
              tenors={tenors.map((t) => ({ tenorDays: t.tenorDays, pts: t.pts, headline: t.headline }))}
              label={`Points at each tenor: ${tenors.map((t) => `${formatPts(t.pts)} over ${tenorText(t.tenorDays)}`).join(", ")}`}
            />
            <figcaption className="mt-1 text-xs text-slate-600">
              Points at each tenor; the headline tenor in dark blue.
            </figcaption>
          </figure>
          <DataTable
            caption="Values at each tenor with their share of the remaining uncertainty"
            columns={[
              { label: "Tenor" },
              { label: "Points", numeric: true },
              { label: "Share of budget", numeric: true },
              { label: "Tier" },
            ]}
            testId="term-table"
            frameClassName="relative overflow-x-auto rounded-lg border border-slate-200 self-start"
            footer={
              <p className="px-3 py-2 text-xs text-slate-600">
                To resolution: {shown.fbvRLabel}. The share is each tenor&apos;s part of that remaining uncertainty (
                <Link href="/docs/methodology/volatility#tiers">tiers</Link>).
              </p>
            }
          >
            {tenors.map((t) => (
              <tr
                key={t.tenorDays}
                className="border-t border-slate-100"
                data-tenor-days={t.tenorDays}
                data-value={String(t.pts)}
              >
                <th scope="row" className="px-3 py-2 font-normal whitespace-nowrap">
                  {tenorText(t.tenorDays)}
                  {t.headline && <span className="ml-1 text-xs text-brand">headline</span>}
                </th>
                <td className="px-3 py-2 text-right font-mono tabular-nums">{t.pts}</td>
                <td
                  className="px-3 py-2 text-right font-mono tabular-nums"
                  title={
                    t.shareCi
                      ? `interval ${formatShare(t.shareCi[0])} to ${formatShare(t.shareCi[1])}`
                      : "interval unavailable"
                  }
                >
                  {formatShare(t.share)}
                </td>
                <td className="px-3 py-2 whitespace-nowrap">{t.tier ?? "—"}</td>
              </tr>
            ))}
            <tr className="border-t border-slate-200 bg-slate-50/60">
              <th scope="row" className="px-3 py-2 font-normal">
                To resolution
              </th>
              <td className="px-3 py-2 text-right font-mono tabular-nums">{shown.fbvRPts}</td>
              <td className="px-3 py-2 text-right font-mono">100.0%</td>
              <td className="px-3 py-2 whitespace-nowrap">{fbvTier ?? "—"}</td>
            </tr>
          </DataTable>
        </div>
        {typeof shown.labels.clockHomogeneityDisclosure === "string" && (
          <p className="max-w-3xl text-sm text-slate-600">{shown.labels.clockHomogeneityDisclosure}</p>
        )}
      </section>

      <section aria-labelledby="history-heading" className="space-y-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="history-heading" className="text-xl font-semibold">
            History over {rangeLabel}
          </h2>
          <RangeLinks path={path} current={range} />
        </div>
        <figure
          className="rounded-lg border border-slate-200 p-3 sm:p-4"
          data-testid="volatility-figure"
          data-range={range}
          data-start={view.requested.start}
          data-count={points.length}
        >
          {points.length > 0 ? (
            <VolatilityHistoryChart
              series={view.packed}
              tenorDays={series.headlineTenorDays}
              filename={`${series.ticker}-${range}`}
              backCalculatedUntil={launch?.launchAt ?? null}
              seriesName={`${series.ticker}: ${series.name}`}
              attribution={config().ATTRIBUTION}
              label={`${series.name}: ${formatCountOf(points.length)} published values (points over ${tenorText(series.headlineTenorDays)}), last ${rangeLabel}, with the uncertainty band`}
            />
          ) : (
            <p
              className="flex h-48 items-center justify-center text-sm text-slate-600"
              data-testid="volatility-chart-empty"
            >
              No published values in the last {rangeLabel}.
            </p>
          )}
          <figcaption className="mt-2 text-xs text-slate-600">
            {formatCountOf(points.length)} published values since <UtcTime value={view.requested.start} />; shaded: the
            published uncertainty band; dashed: the frozen-inception analytic. Withheld computations are not shown (
            <Link href="/docs/methodology/band-and-gates#band">band</Link>).
            {shaded && launch && (
              <>
                {" "}
                <BackCalculatedLegend launch={launch} />
              </>
            )}
          </figcaption>
          {points.length > 0 && (
            <VolatilityValuesTable
              series={view.packed}
              caption={`Published values shown in the chart, in points over ${tenorText(series.headlineTenorDays)}`}
              testId="volatility-history-table"
            />
          )}
        </figure>
        <ApiCall
          title="This chart from the API"
          command={view.apiCall.history}
          docsHref="/docs/api/volatility-history"
        />
      </section>

      <ForecastRecord record={record} ticker={series.ticker} />

      <section aria-labelledby="facts-heading" className="space-y-3">
        <h2 id="facts-heading" className="text-xl font-semibold">
          About this series
        </h2>
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
          <Fact term="Structure measured">{series.targetType}</Fact>
          <Fact term="Tenors published">{series.tenorsDays.map(tenorText).join(", ")}</Fact>
          <Fact term="Headline tenor">{tenorText(series.headlineTenorDays)}</Fact>
          <Fact term="Inception">
            <UtcTime value={series.inceptionAt} />
          </Fact>
          {launch && <LaunchFacts launch={launch} />}
          <Fact term="Settlement backstop">{series.settlementDate ?? "none"}</Fact>
          <Fact term="Versions">
            <span className="font-mono text-xs">
              {shown.methodologyVersion} · {shown.clockVersion} · {shown.devigVersion}
            </span>
          </Fact>
          {series.relatedIndexTickers.length > 0 && (
            <Fact term="Related indices">
              {series.relatedIndexTickers.map((t, i) => (
                <span key={t}>
                  {i > 0 && ", "}
                  <Link href={`/indices/${t}`} className="font-mono">
                    {t}
                  </Link>
                </span>
              ))}
            </Fact>
          )}
          <Fact term="Methodology">
            <a href={series.methodologyUrl}>Volatility methodology</a>
          </Fact>
        </dl>
        <details className="text-sm">
          <summary className="cursor-pointer text-slate-700">Publication tolerances in force</summary>
          <DataTable
            caption="Gate tolerances of this series"
            frameClassName="relative mt-2 overflow-x-auto rounded border border-slate-200"
          >
            {Object.entries(series.gates).map(([k, v]) => (
              <tr key={k} className="border-t border-slate-100 first:border-0">
                <th scope="row" className="px-3 py-1 font-mono text-xs font-normal">
                  {k}
                </th>
                <td className="px-3 py-1 text-right font-mono tabular-nums">{v}</td>
              </tr>
            ))}
          </DataTable>
          <p className="mt-1 text-xs text-slate-600">
            What each check means: <Link href="/docs/methodology/band-and-gates#gates">gates</Link>.
          </p>
        </details>
        <ApiCall
          title="Latest value from the API"
          command={view.apiCall.latest}
          docsHref="/docs/api/volatility-latest"
        />
      </section>
    </article>
  );
}
