import type { Metadata } from "next";
import Link from "next/link";
import { LicenseRequestForm } from "@/components/portal/license-request-form";
import { currentCsrfToken, requireUser } from "@/lib/auth/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Commercial licence" };

export default async function LicenseRequestPage() {
  const user = await requireUser();
  const csrf = await currentCsrfToken();
  return (
    <div className="max-w-3xl space-y-6">
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Commercial licence</h1>
        <p className="text-slate-700">
          The free terms cover research and evaluation with attribution (<Link href="/license">licence</Link>).
          Production use, redistribution and commercial products need a licence: tell us what you plan and we reply with
          terms.
        </p>
      </header>
      <section aria-label="Licence request" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <LicenseRequestForm csrf={csrf} email={user.email} />
      </section>
    </div>
  );
}
