import Link from "next/link";
import { BackfillNotice, backfilling } from "@/components/site/backfill-notice";
import { IndexTable } from "@/components/site/index-table";
import { VolatilityTable } from "@/components/site/volatility-table";
import { indexCatalogView } from "@/lib/site/index-views";
import { volatilityCatalogView } from "@/lib/site/volatility-views";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const [indices, volatility] = await Promise.all([indexCatalogView(root().read), volatilityCatalogView(root().read)]);
  return (
    <div className="space-y-12">
      <section className="space-y-6">
        <h1 className="text-4xl font-semibold tracking-tight">Benchmarks for prediction markets</h1>
        <p className="max-w-2xl text-lg text-slate-700">
          Rules-based indices that measure how prediction markets price a theme, and volatility series that measure how
          much those probabilities are expected to move over a stated horizon. Exact decimal levels, chain-linked across
          every reconstitution, from a JSON API, an MCP server and monthly CSV bundles.
        </p>
        <p className="flex flex-wrap gap-4">
          <Link href="/docs">Read the docs</Link>
          <Link href="/portal">Get an API key</Link>
        </p>
      </section>

      <section aria-labelledby="what-heading" className="grid gap-4 md:grid-cols-2">
        <h2 id="what-heading" className="sr-only">
          What is published
        </h2>
        <div className="rounded-lg border border-slate-200 p-5">
          <h3 className="font-semibold">Indices</h3>
          <p className="mt-2 text-sm text-slate-700">
            Each index tracks the prices of a defined set of prediction markets, based at 100 on its inception date. As
            markets resolve and new ones list, the index reconstitutes and chain-links, so the level stays continuous.
            Levels are exact decimal strings, computed hourly.
          </p>
          <p className="mt-3 text-sm">
            <Link href="/indices">All indices</Link> · <Link href="/docs/methodology#indices">Methodology</Link>
          </p>
        </div>
        <div className="rounded-lg border border-slate-200 p-5">
          <h3 className="font-semibold">Volatility series</h3>
          <p className="mt-2 text-sm text-slate-700">
            Each series measures how much the probabilities of a set of outcomes are expected to move over a horizon (a
            tenor, in days), in probability points. A value is always quoted with its tenor, and only values that clear
            their publication checks are published.
          </p>
          <p className="mt-3 text-sm">
            <Link href="/volatility">All volatility series</Link> ·{" "}
            <Link href="/docs/methodology/volatility">Methodology</Link>
          </p>
        </div>
      </section>

      {backfilling() ? (
        <BackfillNotice what="The index and volatility tables" />
      ) : (
        <>
          <CatalogSection id="indices-heading" title="Indices" href="/indices" more="Changes and status">
            <IndexTable rows={indices} compact />
          </CatalogSection>

          <CatalogSection id="volatility-heading" title="Volatility" href="/volatility" more="All series">
            {volatility.length === 0 ? (
              <p className="text-sm text-slate-600">No volatility series has a published value yet.</p>
            ) : (
              <VolatilityTable series={volatility} compact />
            )}
          </CatalogSection>
        </>
      )}

      <section aria-labelledby="use-heading" className="space-y-3">
        <h2 id="use-heading" className="text-2xl font-semibold tracking-tight">
          Use the data
        </h2>
        <ul className="grid gap-3 text-sm sm:grid-cols-3">
          <li className="rounded-lg border border-slate-200 p-4">
            <Link href="/docs/quickstart" className="font-medium">
              JSON API
            </Link>
            <p className="mt-1 text-slate-600">Latest values and 90 days of history with a free key.</p>
          </li>
          <li className="rounded-lg border border-slate-200 p-4">
            <Link href="/docs/mcp" className="font-medium">
              MCP server
            </Link>
            <p className="mt-1 text-slate-600">The same values for AI assistants, under the same key and limits.</p>
          </li>
          <li className="rounded-lg border border-slate-200 p-4">
            <Link href="/docs/downloads" className="font-medium">
              Monthly snapshots
            </Link>
            <p className="mt-1 text-slate-600">Full history, compositions and chain-link arithmetic as CSV bundles.</p>
          </li>
        </ul>
      </section>
    </div>
  );
}

/** A compact catalog on the home page, with a link to the full one. */
function CatalogSection({
  id,
  title,
  href,
  more,
  children,
}: {
  id: string;
  title: string;
  href: string;
  more: string;
  children: React.ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={id} className="text-2xl font-semibold tracking-tight">
          {title}
        </h2>
        <Link href={href} className="text-sm">
          {more}
        </Link>
      </div>
      {children}
    </section>
  );
}
