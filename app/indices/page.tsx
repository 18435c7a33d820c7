import type { Metadata } from "next";
import { BackfillNotice, backfilling } from "@/components/site/backfill-notice";
import Link from "next/link";
import { IndexTable } from "@/components/site/index-table";
import { indexCatalogView } from "@/lib/site/index-views";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Indices",
  description: "Every published prediction-market index with its latest level, recent changes and status.",
};

export default async function IndicesPage() {
  const rows = await indexCatalogView(root().read);
  return (
    <section className="space-y-6">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Indices</h1>
        <p className="max-w-3xl text-slate-700">
          Each index measures how prediction markets price a defined set of events. Levels are exact decimal strings,
          based at 100 on the index&apos;s inception date and chain-linked across every reconstitution. Changes are
          measured from the last level at or before one and thirty days before the latest one.
        </p>
      </header>
      {backfilling() ? <BackfillNotice what="The indices and their latest levels" /> : <IndexTable rows={rows} />}
      <p className="text-sm text-slate-600">
        The same values are on the API at <code className="font-mono">GET /v1/indices</code> and{" "}
        <code className="font-mono">GET /v1/indices/&#123;ticker&#125;/latest</code> (
        <Link href="/docs/api/indices">reference</Link>). How levels are computed:{" "}
        <Link href="/docs/methodology">methodology</Link>.
      </p>
    </section>
  );
}
