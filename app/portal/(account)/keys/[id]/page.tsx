import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RequestLogSection } from "@/components/portal/request-log";
import { StatusBadge } from "@/components/portal/status-badge";
import { UsageChart } from "@/components/portal/usage-chart";
import { requireUser } from "@/lib/auth/session";
import { formatCount, formatUtc, maskedKey } from "@/lib/portal/format";
import { ownedKey, quotaNow, type QuotaNow } from "@/lib/portal/keys";
import { predecessorOf, replacementOf } from "@/lib/portal/keys-lineage";
import { keyRequests, requestIdQuery } from "@/lib/portal/request-log";
import { keyUsage, type EndpointUsage } from "@/lib/portal/usage";
import { root } from "@/lib/root";

// Per request: the session, the nonce of the CSP, and the database are read at request time.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Key usage" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function KeyUsagePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: SearchParams;
}) {
  const { id } = await params;
  const query = requestIdQuery((await searchParams).request);
  const user = await requireUser();
  const services = root();
  const prisma = await services.db();
  const key = await ownedKey(prisma, id, user.id);
  if (!key) notFound();
  const [usage, requests, quota, replacement, predecessor] = await Promise.all([
    keyUsage(prisma, key.id, user.id),
    keyRequests(prisma, services.config.REQUEST_LOG_DAYS, key.id, user.id, query),
    key.status === "active" ? quotaNow(services, key).catch(() => null) : Promise.resolve(null),
    key.status === "rotated" ? replacementOf(prisma, key.id, user.id) : Promise.resolve(null),
    predecessorOf(prisma, key.replacesId, user.id),
  ]);
  const { last24h, last30d } = usage.totals;

  return (
    <div className="space-y-8">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href="/portal">API keys</Link> <span className="text-slate-400">/</span>{" "}
        <span className="text-slate-600">{key.name}</span>
      </nav>
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div className="space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{key.name}</h1>
          <p className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
            <code className="font-mono text-slate-900" data-testid="usage-key">
              {maskedKey(key)}
            </code>
            <StatusBadge status={key.status} />
            <span>Created {formatUtc(key.createdAt)}</span>
            <span>Last used {formatUtc(key.lastUsedAt)}</span>
          </p>
        </div>
      </header>

      {key.status !== "active" ? (
        <p className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
          {key.status === "rotated" ? "This key was rotated" : "This key was revoked"}
          {key.revokedAt ? ` on ${formatUtc(key.revokedAt)}` : ""} and no longer works.
          {replacement ? (
            <>
              {" "}
              Its replacement is <Link href={`/portal/keys/${replacement.id}`}>{maskedKey(replacement)}</Link>.
            </>
          ) : null}{" "}
          Its usage history stays here.
        </p>
      ) : null}
      {predecessor ? (
        <p className="text-sm text-slate-600">
          This key replaced <Link href={`/portal/keys/${predecessor.id}`}>{maskedKey(predecessor)}</Link>; that
          key&apos;s usage stays on its own page.
        </p>
      ) : null}

      <section aria-labelledby="quota-heading" className="space-y-3">
        <h2 id="quota-heading" className="font-semibold text-slate-900">
          Quota now
        </h2>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <QuotaCard label="Minute window" quota={quota} which="minute" limit={key.limitMinute} />
          <QuotaCard label="Day window" quota={quota} which="day" limit={key.limitDay} />
          <Stat
            label="Requests, last 24 hours"
            value={formatCount(last24h.total)}
            detail={`${formatCount(last24h.rateLimited)} rate limited`}
            testId="total-24h"
          />
          <Stat
            label="Requests, last 30 days"
            value={formatCount(last30d.total)}
            detail={
              last30d.total
                ? `${Math.round((last30d.success / last30d.total) * 1000) / 10}% successful`
                : "No requests yet"
            }
            testId="total-30d"
          />
        </div>
      </section>

      <UsageChart
        id="usage-hourly"
        title="Requests per hour, last 24 hours (UTC)"
        buckets={usage.hourly}
        granularity="hour"
      />
      <UsageChart
        id="usage-daily"
        title="Requests per day, last 30 days (UTC)"
        buckets={usage.daily}
        granularity="day"
      />
      <EndpointsTable endpoints={usage.endpoints} />
      <RequestLogSection keyId={key.id} log={requests} />
      <p className="text-xs text-slate-500">
        Counted by the API per key, endpoint and status class; new requests show up within a few seconds. Requests
        refused before a key was recognized (invalid key, per-address throttle) are not counted against any key.
      </p>
    </div>
  );
}

function QuotaCard({
  label,
  quota,
  which,
  limit,
}: {
  label: string;
  quota: QuotaNow | null;
  which: "minute" | "day";
  limit: number;
}) {
  const remaining = quota ? (which === "minute" ? quota.remainingMinute : quota.remainingDay) : null;
  const reset = quota ? (which === "minute" ? quota.resetMinute : quota.resetDay) : null;
  const share = remaining === null ? 0 : Math.round((remaining / limit) * 100);
  return (
    <div
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      data-testid={`quota-${which}`}
      data-remaining={remaining ?? ""}
      data-limit={limit}
    >
      <p className="text-sm text-slate-600">{label}</p>
      {remaining === null ? (
        <p className="mt-1 text-2xl font-semibold text-slate-400">—</p>
      ) : (
        <>
          <p className="mt-1 text-2xl font-semibold text-slate-900">
            {formatCount(remaining)}{" "}
            <span className="text-sm font-normal text-slate-500">of {formatCount(limit)} left</span>
          </p>
          <div
            role="meter"
            aria-label={`${label}: requests left`}
            aria-valuemin={0}
            aria-valuemax={limit}
            aria-valuenow={remaining}
            className="mt-2 h-1.5 overflow-hidden rounded-full bg-slate-100"
          >
            <div className={`h-full ${share > 20 ? "bg-emerald-500" : "bg-rose-500"}`} style={{ width: `${share}%` }} />
          </div>
          <p className="mt-2 text-xs text-slate-500">
            {reset ? `Next slot frees ${formatUtc(new Date(reset * 1000).toISOString())}` : null}
          </p>
        </>
      )}
    </div>
  );
}

function Stat({ label, value, detail, testId }: { label: string; value: string; detail: string; testId: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid={testId}>
      <p className="text-sm text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-semibold text-slate-900">{value}</p>
      <p className="mt-2 text-xs text-slate-500">{detail}</p>
    </div>
  );
}

function EndpointsTable({ endpoints }: { endpoints: EndpointUsage[] }) {
  return (
    <section
      aria-labelledby="endpoints-heading"
      className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm"
    >
      <h2 id="endpoints-heading" className="border-b border-slate-200 px-5 py-3 font-semibold text-slate-900">
        Most used endpoints, last 30 days
      </h2>
      {endpoints.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-600">No requests yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full text-sm" data-testid="endpoints-table">
            <thead className="bg-slate-50 text-xs font-medium tracking-wide text-slate-500 uppercase">
              <tr>
                <th scope="col" className="px-5 py-2 text-left">
                  Endpoint
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  Requests
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  2xx
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  4xx
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  429
                </th>
                <th scope="col" className="px-5 py-2 text-right">
                  5xx
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {endpoints.map((e) => (
                <tr key={e.endpoint} data-endpoint={e.endpoint} data-total={e.total}>
                  <th scope="row" className="px-5 py-2 text-left font-mono font-normal text-slate-900">
                    {e.endpoint}
                  </th>
                  <td className="px-5 py-2 text-right font-medium">{formatCount(e.total)}</td>
                  <td className="px-5 py-2 text-right">{formatCount(e.success)}</td>
                  <td className="px-5 py-2 text-right">{formatCount(e.clientError)}</td>
                  <td className="px-5 py-2 text-right">{formatCount(e.rateLimited)}</td>
                  <td className="px-5 py-2 text-right">{formatCount(e.serverError)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
