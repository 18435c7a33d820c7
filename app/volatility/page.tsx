import type { Metadata } from "next";
import { BackfillNotice, backfilling } from "@/components/site/backfill-notice";
import Link from "next/link";
import { VolatilityTable } from "@/components/site/volatility-table";
import { volatilityCatalogView } from "@/lib/site/volatility-views";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Volatility",
  description:
    "Published prediction-market volatility series: how much probabilities are expected to move over a stated horizon.",
};

export default async function VolatilityPage() {
  const series = await volatilityCatalogView(root().read);
  return (
    <section className="space-y-6">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Volatility</h1>
        <p className="max-w-3xl text-slate-700">
          Each series measures how much the probabilities of a set of outcomes are expected to move over a stated
          horizon (a tenor, in days). Values are in probability points, and a value is always quoted with its tenor:
          different tenors are different measurements. The headline shown is the latest value that cleared its
          publication checks.
        </p>
      </header>
      {backfilling() ? (
        <BackfillNotice what="The series and their latest values" />
      ) : series.length === 0 ? (
        <p className="text-slate-600">No volatility series has a published value yet.</p>
      ) : (
        <VolatilityTable series={series} />
      )}
      <p className="text-sm text-slate-600">
        The same values are on the API at <code className="font-mono">GET /v1/volatility</code> and{" "}
        <code className="font-mono">GET /v1/volatility/&#123;ticker&#125;/latest</code> (
        <Link href="/docs/api/volatility">reference</Link>). How they are computed:{" "}
        <Link href="/docs/methodology/volatility">methodology</Link>.
      </p>
    </section>
  );
}
