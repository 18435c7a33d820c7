import type { Metadata } from "next";
import Link from "next/link";
import { UtcTime } from "@/components/site/utc-time";
import { changelogView, type ChangeKind } from "@/lib/data/changelog";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Changelog",
  description: "Methodology versions, catalog changes and restatements, newest first.",
  alternates: { types: { "application/atom+xml": [{ url: "/changelog.atom", title: "PM Benchmarks changelog" }] } },
};

const KIND: Record<ChangeKind, { label: string; tone: string }> = {
  methodology: { label: "Methodology", tone: "bg-indigo-50 text-indigo-900 ring-indigo-600/20" },
  catalog: { label: "Catalog", tone: "bg-emerald-50 text-emerald-900 ring-emerald-600/20" },
  restatement: { label: "Restatement", tone: "bg-amber-50 text-amber-900 ring-amber-600/20" },
};

export default async function ChangelogPage() {
  const view = await changelogView(root().read);
  return (
    <article className="space-y-6" data-testid="changelog-page">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Changelog</h1>
        <p className="max-w-3xl text-slate-700">
          Every methodology version in force, every index and series launched, ceased, resolved or retired, and every
          restated value, newest first, read from the database. {view.counts.restatement} restatements in all; each
          month&apos;s are also in its <Link href="/docs/downloads">snapshot bundle</Link> (
          <code className="font-mono text-sm">restatements.csv</code>). Current data freshness:{" "}
          <Link href="/status">status</Link>. Subscribe: <a href="/changelog.atom">Atom feed</a>.
        </p>
      </header>
      {view.entries.length === 0 ? (
        <p className="text-slate-700">Nothing yet.</p>
      ) : (
        <ol className="divide-y divide-slate-200 rounded-lg border border-slate-200" data-testid="changelog">
          {view.entries.map((e, i) => (
            <li
              key={i}
              className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:gap-4"
              data-testid="change"
              data-kind={e.kind}
              data-subject={e.subject}
              data-at={e.at}
            >
              <span className="w-44 shrink-0 text-sm text-slate-700">
                <UtcTime value={e.at} />
              </span>
              <span className="min-w-0">
                <span
                  className={`mr-2 inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${KIND[e.kind].tone}`}
                >
                  {KIND[e.kind].label}
                </span>
                {e.href ? (
                  <Link href={e.href} className="font-medium">
                    {e.title}
                  </Link>
                ) : (
                  <span className="font-medium text-slate-900">{e.title}</span>
                )}
                <span className="block text-sm break-words text-slate-700">{e.detail}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}
