import type { Metadata } from "next";
import Link from "next/link";
import { KeysManager } from "@/components/portal/keys-manager";
import { currentCsrfToken, requireUser } from "@/lib/auth/session";
import { config } from "@/lib/config";
import { listKeys, MAX_ACTIVE_KEYS } from "@/lib/keys/manage-keys";
import { toPortalKey } from "@/lib/portal/keys";

// Per request: the session, the nonce of the CSP, and the database are read at request time.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const user = await requireUser();
  const [keys, csrf] = await Promise.all([listKeys(user.id), currentCsrfToken()]);
  const base = config().baseUrl;
  return (
    <div className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">API keys</h1>
        <p className="max-w-3xl text-slate-700">
          Keys authenticate your requests to the <code className="font-mono text-sm">/v1</code> API. An account holds up to {MAX_ACTIVE_KEYS} active
          keys. We store only a hash of each key, so a key is shown once, when it is created or rotated; a lost key is rotated, not recovered.
        </p>
      </header>
      <KeysManager keys={keys.map(toPortalKey)} csrf={csrf} maxActive={MAX_ACTIVE_KEYS} />
      <section aria-labelledby="quickstart" className="rounded-lg border border-slate-200 bg-slate-50 p-6">
        <h2 id="quickstart" className="font-semibold text-slate-900">
          Make your first request
        </h2>
        <p className="mt-2 text-sm text-slate-700">Send the key in the Authorization header. The response reports the quota left on the key.</p>
        <pre className="mt-3 overflow-x-auto rounded-md bg-slate-900 p-4 font-mono text-sm text-slate-100">
          <code>{`curl -H "Authorization: Bearer $API_KEY" ${base}/v1`}</code>
        </pre>
        <p className="mt-3 text-sm">
          <Link href="/docs">Read the docs</Link> for endpoints, limits and errors.
        </p>
      </section>
    </div>
  );
}
