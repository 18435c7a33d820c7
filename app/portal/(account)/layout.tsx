import Link from "next/link";
import { ConfigProblem } from "@/components/portal/notice";
import { CSRF_FIELD } from "@/lib/auth/csrf";
import { authReadiness } from "@/lib/auth/secret";
import { currentCsrfToken, requireUser } from "@/lib/auth/session";

// Everything under here needs a session; the sign-in and confirmation pages live outside.
export default async function AccountLayout({ children }: { children: React.ReactNode }) {
  const ready = authReadiness();
  if (!ready.ok) return <ConfigProblem message={ready.message} />;
  const user = await requireUser();
  const csrf = await currentCsrfToken();
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-center justify-between gap-4 border-b border-slate-200 pb-4">
        <nav aria-label="Portal" className="flex flex-wrap items-center gap-x-5 gap-y-2 text-sm">
          <span className="font-semibold text-slate-900">Developer portal</span>
          <Link href="/portal" className="text-slate-700 no-underline hover:text-slate-900 hover:underline">
            API keys
          </Link>
          <Link href="/portal/license" className="text-slate-700 no-underline hover:text-slate-900 hover:underline">
            Commercial licence
          </Link>
          <Link href="/docs" className="text-slate-700 no-underline hover:text-slate-900 hover:underline">
            Docs
          </Link>
        </nav>
        <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
          <span>
            Signed in as{" "}
            <strong data-testid="account-email" className="font-medium text-slate-900">
              {user.email}
            </strong>
          </span>
          <form action="/api/auth/signout" method="post">
            <input type="hidden" name={CSRF_FIELD} value={csrf} />
            <button
              type="submit"
              className="rounded-md px-2.5 py-1 font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
            >
              Sign out
            </button>
          </form>
        </div>
      </div>
      {children}
    </div>
  );
}
