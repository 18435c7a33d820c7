import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { LevelChart } from "@/components/charts/level-chart";
import { packLevels } from "@/lib/site/level-series";
import { LevelValuesTable } from "@/components/charts/level-values-table";
import { parseApiTime } from "@/lib/site/time";
import { BackfillNotice, BackfillPending, backfilling } from "@/components/site/backfill-notice";
import { ApiCall } from "@/components/site/api-call";
import { StaleBadge, StatusBadge } from "@/components/site/badges";
import { Change } from "@/components/site/change";
import { DataTable, STICKY_HEAD } from "@/components/site/data-table";
import { DetailHeader } from "@/components/site/detail-header";
import { Fact } from "@/components/site/fact";
import { RangeLinks } from "@/components/site/range-links";
import { SegmentedLinks } from "@/components/site/segmented-links";
import { UtcTime } from "@/components/site/utc-time";
import { indexLatest } from "@/lib/data/indices";
import { entryLaunch } from "@/lib/data/launches";
import { BackCalculatedLegend, LaunchFacts } from "@/components/site/back-calculated";
import { indexPageView } from "@/lib/site/index-views";
import { chartHref, INTERVALS, parseIntervalParam, parseRange, RANGES } from "@/lib/site/range";
import { root } from "@/lib/root";
import { config } from "@/lib/config";
import { formatCountOf } from "@/lib/site/format";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ ticker: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const latest = await indexLatest(root().read, (await params).ticker);
  if (!latest) return { title: "Not found" };
  return {
    title: `${latest.name} (${latest.ticker})`,
    description: `Level history, reconstitutions and data quality of ${latest.name}.`,
  };
}

export default async function IndexPage({ params, searchParams }: Props) {
  const [{ ticker }, query] = await Promise.all([params, searchParams]);
  const range = parseRange(query.range);
  const interval = parseIntervalParam(query.interval);
  const found = await indexLatest(root().read, ticker);
  if (!found && backfilling()) return <BackfillPending what={`/indices/${ticker}`} />;
  if (!found) notFound();
  const path = `/indices/${found.ticker}`;
  // Tickers are case-insensitive; the page has one address, in the catalog's spelling.
  if (decodeURIComponent(ticker) !== found.ticker) {
    redirect(query.range === undefined && query.interval === undefined ? path : chartHref(path, { range, interval }));
  }
  const view = await indexPageView(root().read, found.ticker, range, interval);
  if (!view && backfilling()) return <BackfillPending what={path} />;
  if (!view) notFound();
  const { latest, points, reconstitutions, windowReconstitutions, reconstitutionCount } = view;
  const launch = await entryLaunch(root().read, "index", latest.ticker);
  const shaded = launch !== null && points.length > 0 && (points[0]?.t ?? "~") < launch.launchAt.slice(0, 19);
  // Sent once, packed, to both the chart and the levels table (not 2,160 point objects twice).
  const packed = packLevels(points, (t) => parseApiTime(t).getTime());
  const windowEvents = windowReconstitutions.filter(
    (e) => e.completedAt >= (points[0]?.t ?? "~") && e.completedAt <= (points[points.length - 1]?.t ?? ""),
  );
  const rangeLabel = `${RANGES[range]} days`;
  const intervalLabel = interval === "1h" ? "hourly" : "daily (00:00 UTC fixing)";

  return (
    <article className="space-y-8" data-testid="index-page" data-ticker={latest.ticker}>
      <DetailHeader
        catalog={{ href: "/indices", label: "Indices" }}
        crumb={latest.ticker}
        name={latest.name}
        ticker={latest.ticker}
      >
        <StatusBadge status={latest.publicStatus} testId="index-status" />
        {latest.stale && <StaleBadge />}
        <span className="text-slate-500">{latest.maturityType}</span>
      </DetailHeader>
      <BackfillNotice what="The latest level, the changes and the level history" />

      <section aria-labelledby="latest-heading" className="grid gap-4 md:grid-cols-3">
        <div className="rounded-lg border border-slate-200 p-5 shadow-sm md:col-span-1">
          <h2 id="latest-heading" className="text-sm font-medium text-slate-600">
            Latest level
          </h2>
          <p
            className="mt-1 font-mono text-3xl font-semibold break-all text-slate-900 tabular-nums"
            data-testid="latest-level"
            data-value={latest.indexLevel}
          >
            {latest.indexLevel}
          </p>
          <p className="mt-1 text-sm text-slate-600">
            Computed <UtcTime value={latest.computedAt} testId="latest-computed-at" />
          </p>
          <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
            <div>
              <dt className="text-slate-500">1 day</dt>
              <dd>
                <Change change={view.change1d} />
              </dd>
            </div>
            <div>
              <dt className="text-slate-500">30 days</dt>
              <dd>
                <Change change={view.change30d} />
              </dd>
            </div>
          </dl>
        </div>
        <div className="rounded-lg border border-slate-200 p-5 md:col-span-2">
          <h2 className="text-sm font-medium text-slate-600">Data quality and versions</h2>
          <dl className="mt-2 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2" data-testid="index-facts">
            <Fact term="Fresh inputs">
              <span data-testid="fresh-data-pct">{latest.dataQuality.freshDataPct}%</span> of constituents (
              {latest.dataQuality.freshMarketsCount} fresh, {latest.dataQuality.staleMarketsCount} stale,{" "}
              {latest.dataQuality.totalMarketsCount} total)
            </Fact>
            <Fact term="Methodology version">
              <Link href="/docs/methodology" className="font-mono">
                {latest.methodologyVersion}
              </Link>
            </Fact>
            <Fact term="Composition version">
              <span className="font-mono" data-testid="composition-version">
                {latest.compositionVersion}
              </span>
            </Fact>
            <Fact term="Revision">{latest.revision}</Fact>
            <Fact term="Base level">
              <span className="font-mono">{latest.baseIndexLevel}</span> at <UtcTime value={latest.inceptionAt} />
            </Fact>
            {launch && <LaunchFacts launch={launch} />}
            {latest.ceasedAt && (
              <Fact term="Ceased">
                <UtcTime value={latest.ceasedAt} />
              </Fact>
            )}
            {latest.resolvedAt && (
              <Fact term="Resolved">
                <UtcTime value={latest.resolvedAt} />
              </Fact>
            )}
            {latest.seriesPartiallyResolved && (
              <Fact term="Constituents">Some constituents have resolved since inception</Fact>
            )}
          </dl>
        </div>
      </section>

      <section aria-labelledby="chart-heading" className="space-y-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="chart-heading" className="text-xl font-semibold">
            Level history
          </h2>
          <div className="flex flex-wrap gap-3">
            <RangeLinks path={path} current={range} interval={interval} />
            <SegmentedLinks
              label="Interval"
              name="interval"
              current={interval}
              options={INTERVALS.map((i) => ({
                key: i,
                label: i === "1h" ? "hourly" : "daily",
                ariaLabel: "Interval: ",
                href: chartHref(path, { range, interval: i }),
              }))}
            />
          </div>
        </div>
        <figure
          className="rounded-lg border border-slate-200 p-3 sm:p-4"
          data-testid="level-figure"
          data-range={range}
          data-interval={interval}
          data-start={view.requested.start}
          data-end={view.requested.end}
          data-count={points.length}
        >
          {points.length > 0 ? (
            <LevelChart
              series={packed}
              latest={
                latest.computedAt >= view.served.start.slice(0, 19)
                  ? { t: latest.computedAt, indexLevel: latest.indexLevel }
                  : null
              }
              filename={`${latest.ticker}-${range}-${interval}`}
              events={windowEvents.map((e) => ({ t: e.completedAt, label: `${e.fromVersion} → ${e.toVersion}` }))}
              interval={interval}
              backCalculatedUntil={launch?.launchAt ?? null}
              seriesName={`${latest.ticker}: ${latest.name}`}
              attribution={config().ATTRIBUTION}
              label={`${latest.name}: ${formatCountOf(points.length)} ${intervalLabel} levels over the last ${rangeLabel}`}
            />
          ) : (
            <p
              className="flex h-48 items-center justify-center text-center text-sm text-slate-600"
              data-testid="level-chart-empty"
            >
              No levels in the last {rangeLabel}
              {latest.publicStatus !== "active"
                ? ` (the index ${latest.publicStatus} on ${latest.computedAt.slice(0, 10)})`
                : ""}
              .
            </p>
          )}
          <figcaption className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
            <span>
              {formatCountOf(points.length)} {intervalLabel} levels, <UtcTime value={view.requested.start} /> to{" "}
              <UtcTime value={view.requested.end} />
            </span>
            {interval === "1d" &&
              latest.computedAt > (points[points.length - 1]?.t ?? "~") &&
              latest.computedAt >= view.served.start.slice(0, 19) && (
                <span data-testid="latest-point-note">
                  The hollow last point is the latest level, after the last fixing.
                </span>
              )}
            {shaded && launch && <BackCalculatedLegend launch={launch} />}
            {windowEvents.length > 0 && (
              <span>
                <span
                  aria-hidden="true"
                  className="mr-1 inline-block h-3 border-l-2 border-dashed border-amber-500 align-middle"
                />
                {windowEvents.length} reconstitution{windowEvents.length === 1 ? "" : "s"} in this window (marked R)
              </span>
            )}
          </figcaption>
          {points.length > 0 && <LevelValuesTable series={packed} testId="level-table" />}
        </figure>
        <ApiCall title="This chart from the API" command={view.apiCall.history} docsHref="/docs/api/index-history" />
      </section>

      <section aria-labelledby="recon-heading" className="space-y-3">
        <h2 id="recon-heading" className="text-xl font-semibold">
          Reconstitutions
        </h2>
        <p className="max-w-3xl text-sm text-slate-700">
          A reconstitution keeps the index measuring its theme as markets resolve and new ones list. The level is
          chain-linked across each change, so it is the same under the outgoing and incoming composition and the series
          stays continuous (<Link href="/docs/methodology#reconstitution-and-chain-linking">how</Link>). Which markets
          entered or left is in the monthly <Link href="/docs/downloads">snapshot bundles</Link>.
        </p>
        {reconstitutions.length === 0 ? (
          <p className="text-sm text-slate-600" data-testid="recon-empty">
            No reconstitutions since inception: the index still holds composition {latest.compositionVersion}.
          </p>
        ) : (
          <>
            <p
              className="text-sm text-slate-700"
              data-testid="recon-count"
              data-rows={reconstitutions.length}
              data-total={reconstitutionCount}
            >
              {reconstitutions.length < reconstitutionCount
                ? `${formatCountOf(reconstitutions.length)} rows: the newest ${formatCountOf(reconstitutions.length)} of ${formatCountOf(reconstitutionCount)} reconstitutions since inception (all of them are in the monthly bundles' chain_links.csv).`
                : `${formatCountOf(reconstitutions.length)} rows: every reconstitution since inception.`}
            </p>
            <DataTable
              caption={
                reconstitutions.length < reconstitutionCount
                  ? `The ${formatCountOf(reconstitutions.length)} newest of ${formatCountOf(reconstitutionCount)} reconstitution events since inception, newest first`
                  : `All ${formatCountOf(reconstitutions.length)} reconstitution events since inception, newest first`
              }
              columns={[
                { label: "Took effect" },
                { label: "Composition" },
                { label: "Markets added", numeric: true },
                { label: "Event id" },
              ]}
              testId="recon-table"
              frameClassName="relative max-h-[28rem] overflow-auto rounded-lg border border-slate-200"
              headClassName={STICKY_HEAD}
            >
              {reconstitutions.map((e) => (
                <tr
                  key={e.eventId}
                  className="border-t border-slate-100"
                  data-testid="recon-row"
                  data-event-id={e.eventId}
                >
                  <td className="px-3 py-2">
                    <UtcTime value={e.completedAt} />
                  </td>
                  <td className="px-3 py-2 font-mono whitespace-nowrap">
                    {e.fromVersion} <span aria-label="to">→</span> {e.toVersion}
                  </td>
                  <td className="px-3 py-2 text-right">{e.addedMarketCount}</td>
                  <td className="px-3 py-2 font-mono text-xs text-slate-500">{e.eventId}</td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
        <ApiCall
          title="Reconstitutions from the API"
          command={view.apiCall.reconstitutions}
          docsHref="/docs/api/reconstitutions"
        />
      </section>

      <section aria-labelledby="latest-api-heading" className="space-y-2">
        <h2 id="latest-api-heading" className="text-xl font-semibold">
          Latest level from the API
        </h2>
        <ApiCall title="Latest level" command={view.apiCall.latest} docsHref="/docs/api/index-latest" />
      </section>
    </article>
  );
}
