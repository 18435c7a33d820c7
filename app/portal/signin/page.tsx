import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { ConfigProblem, LinkProblem } from "@/components/portal/notice";
import { SignInForm } from "@/components/portal/sign-in-form";
import { MAGIC_LINK_MINUTES } from "@/lib/auth/auth";
import { authReadiness } from "@/lib/auth/secret";
import { currentUser } from "@/lib/auth/session";
import { config } from "@/lib/config";
import { formatCount } from "@/lib/portal/format";
import { outboxEnabled } from "@/lib/mail/outbox";
import { MAX_ACTIVE_KEYS } from "@/lib/keys/manage-keys";
import { signInMessage } from "@/lib/portal/sign-in-messages";

// Per request: the session, the nonce of the CSP, and the database are read at request time.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const ready = authReadiness();
  if (!ready.ok) return <ConfigProblem message={ready.message} />;
  if (await currentUser()) redirect("/portal");
  const params = await searchParams;
  const link = one(params.link);
  const linkState = link === "expired" || link === "used" ? link : params.error === "Verification" ? "used" : null;
  const error = linkState ? null : signInMessage(one(params.error));
  const c = config();

  return (
    <div className="grid gap-10 md:grid-cols-[minmax(0,1fr)_18rem] md:items-start">
      <section aria-label="Sign in" className="max-w-md space-y-6">
        {linkState ? (
          <LinkProblem state={linkState} minutes={MAGIC_LINK_MINUTES} />
        ) : (
          <div className="space-y-2">
            <p className="text-sm font-medium text-brand">Developer portal</p>
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Sign in or create an account</h1>
            <p className="text-slate-700">
              Enter your work e-mail and we will send you a link. New here? The same link creates your free account.
            </p>
          </div>
        )}
        {params.signedOut ? (
          <p role="status" className="rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-700">
            You are signed out.
          </p>
        ) : null}
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <SignInForm
            minutes={MAGIC_LINK_MINUTES}
            initialEmail={one(params.email)}
            initialError={error}
            sentTo={one(params.sent) ?? null}
          />
        </div>
        {outboxEnabled() ? (
          <p className="rounded-md border border-dashed border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            Demo mode: this server sends no e-mail. Sign-in links land in the{" "}
            <Link href="/dev/outbox">local outbox</Link>.
          </p>
        ) : null}
      </section>
      <aside aria-labelledby="free-tier" className="rounded-lg bg-slate-50 p-6 text-sm text-slate-700">
        <h2 id="free-tier" className="font-semibold text-slate-900">
          The free tier
        </h2>
        <ul className="mt-3 space-y-2">
          <li>
            <strong className="text-slate-900">{formatCount(c.FREE_LIMIT_MINUTE)}</strong> requests per minute and{" "}
            <strong className="text-slate-900">{formatCount(c.FREE_LIMIT_DAY)}</strong> per day, per key
          </li>
          <li>Up to {MAX_ACTIVE_KEYS} active keys per account</li>
          <li>Usage per key, by hour and by day</li>
          <li>No password: every sign-in is a one-time link to your inbox</li>
        </ul>
        <p className="mt-4">
          <Link href="/docs">Read the docs</Link>
        </p>
      </aside>
    </div>
  );
}
