import type { Metadata } from "next";
import { ConfigProblem, LinkProblem } from "@/components/portal/notice";
import { SignInForm } from "@/components/portal/sign-in-form";
import { MAGIC_LINK_MINUTES } from "@/lib/auth/auth";
import { normalizeEmail } from "@/lib/auth/email-address";
import { linkState } from "@/lib/auth/magic-link";
import { authReadiness } from "@/lib/auth/secret";
import { root } from "@/lib/root";

// Per request: the session, the nonce of the CSP, and the database are read at request time.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Confirm sign-in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

// The page the mailed link opens. Reading it spends nothing (mail scanners open links); only the
// button's POST to /api/auth/confirm signs in and uses up the link.
export default async function ConfirmPage({ searchParams }: { searchParams: SearchParams }) {
  const ready = authReadiness();
  if (!ready.ok) return <ConfigProblem message={ready.message} />;
  const params = await searchParams;
  const token = typeof params.token === "string" ? params.token : "";
  const email = typeof params.email === "string" ? normalizeEmail(params.email) : "";
  const state = token && email ? await linkState(await root().db(), email, token) : "used";

  if (state !== "valid") {
    return (
      <section aria-label="Sign-in link" className="mx-auto max-w-md space-y-6">
        <LinkProblem state={state} minutes={MAGIC_LINK_MINUTES} />
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <SignInForm minutes={MAGIC_LINK_MINUTES} initialEmail={email} submitLabel="Email me a new link" />
        </div>
      </section>
    );
  }

  return (
    <section aria-labelledby="confirm-heading" className="mx-auto max-w-md">
      <div className="rounded-lg border border-slate-200 bg-white p-8 shadow-sm">
        <p className="text-sm font-medium text-brand">Developer portal</p>
        <h1 id="confirm-heading" className="mt-1 text-2xl font-semibold tracking-tight text-slate-900">
          Confirm sign-in
        </h1>
        <p className="mt-3 text-slate-700">
          Sign in as <strong className="break-all text-slate-900">{email}</strong>?
        </p>
        <form action="/api/auth/confirm" method="post" className="mt-6">
          <input type="hidden" name="token" value={token} />
          <input type="hidden" name="email" value={email} />
          <button
            type="submit"
            className="inline-flex w-full items-center justify-center rounded-md bg-brand px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-dark"
          >
            Sign in
          </button>
        </form>
        <p className="mt-4 text-xs text-slate-500">
          This extra click keeps e-mail security scanners, which open links on their own, from using up your link. The
          link works once.
        </p>
      </div>
    </section>
  );
}
