import type { Metadata } from "next";
import Link from "next/link";
import { IncidentList } from "@/components/site/incident-list";
import { incidentHistory } from "@/lib/data/status";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Incident history",
  description:
    "Every incident: venue reads failing, stale indices and series, and those posted by the operator, with their notes.",
  alternates: {
    types: { "application/atom+xml": [{ url: "/status/incidents.atom", title: "PM Benchmarks incidents" }] },
  },
};

export default async function IncidentHistoryPage() {
  const incidents = await incidentHistory(root().read);
  return (
    <article className="space-y-6" data-testid="incident-history">
      <header className="space-y-2">
        <p className="text-sm text-slate-700">
          <Link href="/status">Status</Link> / history
        </p>
        <h1 className="text-3xl font-semibold tracking-tight">Incident history</h1>
        <p className="max-w-3xl text-slate-700">
          Every incident, newest first. The service opens one when a venue read fails for a whole collector run, the
          engine falls behind, or an index or volatility series goes stale, and closes it when that ends; the operator
          posts and annotates others. Subscribe: <a href="/status/incidents.atom">Atom feed of incidents</a>.
        </p>
      </header>
      {incidents.length === 0 ? (
        <p className="text-slate-700" data-testid="no-incident-history">
          No incident has been recorded.
        </p>
      ) : (
        <IncidentList incidents={incidents} testId="history-incident" />
      )}
    </article>
  );
}
