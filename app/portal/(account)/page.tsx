import type { Metadata } from "next";
import Link from "next/link";
import { CopyButton } from "@/components/docs/copy-button";
import { BundleDownloads } from "@/components/portal/bundle-downloads";
import { KeysManager } from "@/components/portal/keys-manager";
import { currentCsrfToken, requireUser } from "@/lib/auth/session";
import { config } from "@/lib/config";
import { listKeys, MAX_ACTIVE_KEYS } from "@/lib/keys/manage-keys";
import { maskedKey } from "@/lib/portal/format";
import { toPortalKey } from "@/lib/portal/keys";
import { latestManifest } from "@/lib/snapshots/read-bundles";
import { root } from "@/lib/root";

// Per request: the session, the nonce of the CSP, and the database are read at request time.
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const user = await requireUser();
  const prisma = await root().db();
  const [keys, csrf, manifest] = await Promise.all([
    listKeys(prisma, user.id),
    currentCsrfToken(),
    latestManifest(prisma),
  ]);
  const base = config().baseUrl;
  // the variable the quickstart exports, so the two paste in order
  const snippet = `curl -H "Authorization: Bearer $PMB_API_KEY" \\\n  ${base}/v1`;
  // Session downloads are counted on the oldest active key (listKeys is newest first).
  const meteredOn = keys.filter((k) => k.status === "active").at(-1);
  return (
    <div className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">API keys</h1>
        <p className="max-w-3xl text-slate-700">
          Keys authenticate your requests to the <code className="font-mono text-sm">/v1</code> API. An account holds up
          to {MAX_ACTIVE_KEYS} active keys. We store only a hash of each key, so a key is shown once, when it is created
          or rotated; a lost key is rotated, not recovered.
        </p>
      </header>
      <KeysManager keys={keys.map(toPortalKey)} csrf={csrf} maxActive={MAX_ACTIVE_KEYS} />
      <section aria-labelledby="quickstart" className="rounded-lg border border-slate-200 bg-slate-50 p-6">
        <h2 id="quickstart" className="font-semibold text-slate-900">
          Make your first request
        </h2>
        <p className="mt-2 text-sm text-slate-700">
          Send the key in the Authorization header, from the <code className="font-mono text-xs">PMB_API_KEY</code>{" "}
          variable the <Link href="/docs/quickstart">quickstart</Link> exports (and the clients read). The response
          reports the quota left on the key.
        </p>
        <div className="relative mt-3">
          {/* Wrapped, never scrolled: the text stays clear of the Copy button at any width. */}
          <pre
            className="rounded-md bg-slate-900 p-4 pr-20 font-mono text-sm [overflow-wrap:anywhere] whitespace-pre-wrap text-slate-100"
            data-testid="first-request"
          >
            <code>{snippet}</code>
          </pre>
          <div className="absolute top-2 right-2">
            <CopyButton text={snippet} label="Copy the first request" />
          </div>
        </div>
        <p className="mt-3 text-sm">
          <Link href="/docs">Read the docs</Link> for endpoints, limits and errors.
        </p>
        <p className="mt-2 text-sm text-slate-700" data-testid="client-packages">
          Clients:{" "}
          <a href="/clients/pm-benchmarks-client-1.0.0.tgz" download>
            TypeScript (npm tarball)
          </a>
          ,{" "}
          <a href="/clients/pmb_client-1.0.0-py3-none-any.whl" download>
            Python (wheel)
          </a>
          ; install commands in the <Link href="/docs/quickstart#2-install-a-client-or-use-curl">quickstart</Link>.
        </p>
      </section>
      <BundleDownloads
        months={manifest.months.map((m) => ({
          month: m.month,
          files: m.files.map((f) => ({ name: f.name, rows: f.rows })),
        }))}
        keyLabel={meteredOn ? maskedKey(toPortalKey(meteredOn)) : null}
      />
    </div>
  );
}
