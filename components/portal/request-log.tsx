import Link from "next/link";
import { formatUtcSeconds } from "@/lib/portal/format";
import type { RequestLog } from "@/lib/portal/request-log";

const STATUS_STYLE = (status: number) =>
  status >= 500
    ? "bg-rose-50 text-rose-800"
    : status === 429
      ? "bg-amber-50 text-amber-900"
      : status >= 400
        ? "bg-orange-50 text-orange-900"
        : "bg-emerald-50 text-emerald-800";

/**
 * A key's last requests, newest first, searchable by request id (a plain GET form: it works
 * before and without JavaScript). On phones each request is a card; from `sm` up, a table row.
 */
export function RequestLogSection({ keyId, log }: { keyId: string; log: RequestLog }) {
  const { rows, query, size, days } = log;
  return (
    <section
      id="requests"
      aria-labelledby="requests-heading"
      className="rounded-lg border border-slate-200 bg-white shadow-sm"
    >
      <div className="space-y-3 border-b border-slate-200 px-5 py-3">
        <h2 id="requests-heading" className="font-semibold text-slate-900">
          Recent requests
        </h2>
        <p className="text-sm text-slate-600">
          The last {size} requests made with this key in the past {days} days, newest first. Every API answer carries
          its id in the <code>X-Request-Id</code> header and in an error&apos;s <code>requestId</code>: paste it here to
          find the request.
        </p>
        <form
          method="get"
          action={`/portal/keys/${keyId}#requests`}
          role="search"
          className="flex flex-wrap items-end gap-2"
        >
          <div className="min-w-0 flex-1">
            <label htmlFor="request-search" className="block text-sm font-medium text-slate-900">
              Request id
            </label>
            <input
              id="request-search"
              name="request"
              type="search"
              defaultValue={query ?? ""}
              maxLength={100}
              autoComplete="off"
              spellCheck={false}
              placeholder="e.g. 3f2c9a4e-…"
              className="mt-1 block w-full rounded-md border border-slate-400 px-3 py-2 font-mono text-sm shadow-sm focus:border-brand focus:ring-2 focus:ring-brand/30 focus:outline-none"
            />
          </div>
          <button
            type="submit"
            className="rounded-md bg-brand px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-dark"
          >
            Search
          </button>
          {query ? (
            <Link href={`/portal/keys/${keyId}#requests`} className="px-2 py-2 text-sm">
              Show all
            </Link>
          ) : null}
        </form>
      </div>
      {rows.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-600" data-testid="request-log-empty">
          {query ? (
            <>
              No request with an id containing <code className="font-mono">{query}</code> among this key&apos;s last{" "}
              {size}.
            </>
          ) : (
            "No requests yet. New requests show up within a few seconds."
          )}
        </p>
      ) : (
        <table className="block w-full text-sm sm:table" data-testid="request-log">
          <caption className="sr-only">
            {query ? `Requests whose id contains ${query}` : `The last ${size} requests`}
          </caption>
          <thead className="sr-only bg-slate-50 text-xs font-medium tracking-wide text-slate-500 uppercase sm:not-sr-only sm:table-header-group">
            <tr>
              <th scope="col" className="px-5 py-2 text-left">
                Time (UTC)
              </th>
              <th scope="col" className="px-3 py-2 text-left">
                Request
              </th>
              <th scope="col" className="px-3 py-2 text-left">
                Status
              </th>
              <th scope="col" className="px-5 py-2 text-left">
                Request id
              </th>
            </tr>
          </thead>
          <tbody className="block divide-y divide-slate-100 sm:table-row-group">
            {rows.map((r) => (
              <tr
                key={`${r.requestId}-${r.at}`}
                className="block px-5 py-3 sm:table-row sm:p-0"
                data-request-id={r.requestId}
                data-status={r.status}
              >
                <td className="block text-xs text-slate-600 sm:table-cell sm:px-5 sm:py-2 sm:text-sm sm:whitespace-nowrap">
                  <time dateTime={r.at}>{formatUtcSeconds(r.at)}</time>
                </td>
                <td className="block py-1 break-all sm:table-cell sm:px-3 sm:py-2">
                  <span className="font-mono text-slate-900">
                    <span className="text-slate-500">{r.method}</span> {r.path}
                  </span>
                  {r.path !== r.endpoint ? <span className="block text-xs text-slate-500">{r.endpoint}</span> : null}
                </td>
                <td className="inline-block py-1 pr-2 sm:table-cell sm:px-3 sm:py-2">
                  <span
                    className={`inline-block rounded px-1.5 py-0.5 font-mono text-xs font-medium ${STATUS_STYLE(r.status)}`}
                  >
                    {r.status}
                  </span>
                  {r.errorCode ? <span className="ml-2 font-mono text-xs text-slate-700">{r.errorCode}</span> : null}
                </td>
                <td className="block font-mono text-xs break-all text-slate-700 sm:table-cell sm:px-5 sm:py-2">
                  <span className="sm:hidden">id </span>
                  {r.requestId}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
