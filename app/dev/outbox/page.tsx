import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { clientAddress } from "@/lib/api/pipeline";
import { config } from "@/lib/config";
import { outboxEnabled } from "@/lib/mail/outbox";
import { formatUtc } from "@/lib/portal/format";
import { root } from "@/lib/root";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Outbox (development)", robots: { index: false, follow: false } };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/** The path and query of a link: the outbox opens it on the host the reader is already using. */
function localHref(link: string): string {
  try {
    const u = new URL(link);
    return `${u.pathname}${u.search}`;
  } catch {
    return link;
  }
}

// Only without EMAIL_SERVER, and never on a production deployment: see outboxEnabled(). Shown to
// loopback clients only, unless DEV_OUTBOX=1: the embedded default is a single-machine demo, and
// a stranger reaching it over the network must not read sign-in links meant for someone else.
export default async function OutboxPage({ searchParams }: { searchParams: SearchParams }) {
  if (!outboxEnabled()) notFound();
  const requestHeaders = await headers();
  const client = clientAddress(requestHeaders);
  const allowed = config().DEV_OUTBOX || isLoopback(client);
  const { to } = await searchParams;
  const filter = typeof to === "string" ? to.trim().toLowerCase() : "";
  const mails = allowed
    ? root()
        .mailer.outbox.mails()
        .filter((m) => !filter || m.to === filter)
    : [];

  return (
    <div className="space-y-6">
      <header className="space-y-2">
        <p className="text-sm font-medium text-amber-700">Development only</p>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Outbox</h1>
        <p className="max-w-3xl text-sm text-slate-700">
          This server has no <code className="font-mono">EMAIL_SERVER</code>, so it keeps the e-mails it would send
          here, in memory, newest first. A production deployment sets <code className="font-mono">EMAIL_SERVER</code>{" "}
          and has no outbox.
        </p>
      </header>
      {!allowed ? (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
          The outbox is shown only to clients on this machine ({client} is not a loopback address). Set{" "}
          <code className="font-mono">DEV_OUTBOX=1</code> to show it to every client, for example in a container.
        </p>
      ) : mails.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center">
          <p className="font-medium text-slate-900">No e-mail {filter ? `to ${filter} ` : ""}yet</p>
          <p className="mt-1 text-sm text-slate-600">
            Request a sign-in link on the <Link href="/portal/signin">sign-in page</Link> and it shows up here.
          </p>
        </div>
      ) : (
        <ol className="space-y-4" aria-label="E-mails, newest first">
          {mails.map((mail) => (
            <li key={mail.id}>
              <article
                aria-labelledby={`mail-${mail.id}`}
                data-testid="outbox-mail"
                data-to={mail.to}
                className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm"
              >
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <h2 id={`mail-${mail.id}`} className="font-semibold text-slate-900">
                    {mail.subject}
                  </h2>
                  <p className="text-xs text-slate-500">{formatUtc(mail.sentAt.toISOString())}</p>
                </div>
                <dl className="mt-2 grid grid-cols-[4rem_1fr] gap-x-3 gap-y-1 text-sm">
                  <dt className="text-slate-500">To</dt>
                  <dd className="break-all text-slate-900">{mail.to}</dd>
                  <dt className="text-slate-500">From</dt>
                  <dd className="break-all text-slate-700">{mail.from}</dd>
                </dl>
                {mail.links.length > 0 ? (
                  <p className="mt-4 flex flex-wrap gap-3">
                    {mail.links.map((link) => (
                      <a
                        key={link}
                        href={localHref(link)}
                        className="rounded-md bg-brand px-3 py-1.5 text-sm font-semibold text-white! hover:bg-brand-dark"
                      >
                        Open sign-in link
                      </a>
                    ))}
                  </p>
                ) : null}
                <details className="mt-4">
                  <summary className="cursor-pointer text-sm text-slate-600 hover:text-slate-900">
                    Plain-text body
                  </summary>
                  <pre className="mt-2 overflow-x-auto rounded-md bg-slate-50 p-3 text-xs whitespace-pre-wrap text-slate-800">
                    {mail.text}
                  </pre>
                </details>
              </article>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
