import Link from "next/link";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  return (
    <section className="space-y-6">
      <h1 className="text-4xl font-semibold tracking-tight">Benchmarks for prediction markets</h1>
      <p className="max-w-2xl text-lg text-slate-700">
        Rules-based indices that measure how prediction markets price a theme, and volatility series that measure how
        much those probabilities are expected to move over a stated horizon. Exact decimal levels, chain-linked across
        every reconstitution, from a JSON API, an MCP server and monthly CSV bundles.
      </p>
      <p className="flex gap-4">
        <Link href="/docs">Read the docs</Link>
        <Link href="/portal">Get an API key</Link>
      </p>
    </section>
  );
}
