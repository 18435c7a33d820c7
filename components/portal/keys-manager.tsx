"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/portal/confirm-dialog";
import { SecretReveal } from "@/components/portal/secret-reveal";
import { StatusBadge } from "@/components/portal/status-badge";
import { useHydrated } from "@/components/portal/use-hydrated";
import { formatCount, formatUtc, maskedKey } from "@/lib/portal/format";
import type { PortalKey } from "@/lib/portal/keys";

type Pending = { kind: "rotate" | "revoke"; key: PortalKey } | null;
type Revealed = { secret: string; title: string; detail: string } | null;

interface ActionResult {
  key?: string;
  summary?: PortalKey;
  /** false: the key is retired in the database but some live instance has not confirmed it (`notice` says which) */
  confirmed?: boolean;
  notice?: string;
  error?: { code: string; message: string };
}

/** Mint, rotate and revoke through the portal's key routes, with the session's CSRF token. */
export function KeysManager({ keys, csrf, maxActive }: { keys: PortalKey[]; csrf: string; maxActive: number }) {
  const router = useRouter();
  // Every action here needs JavaScript: the buttons stay disabled until React runs.
  const hydrated = useHydrated();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [revealed, setRevealed] = useState<Revealed>(null);
  const [pending, setPending] = useState<Pending>(null);
  const active = keys.filter((k) => k.status === "active");
  const inactive = keys.filter((k) => k.status !== "active");
  const full = active.length >= maxActive;

  async function call(path: string, body: unknown): Promise<ActionResult> {
    try {
      const res = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body ?? {}),
      });
      const json = (await res.json().catch(() => ({}))) as ActionResult;
      if (res.status === 401) router.refresh();
      return res.ok
        ? json
        : { error: json.error ?? { code: "error", message: "Something went wrong. Reload the page and try again." } };
    } catch {
      return {
        error: { code: "network", message: "Could not reach the server. Check your connection and try again." },
      };
    }
  }

  async function mint(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy("mint");
    setError(null);
    const result = await call("/portal/api/keys", { name });
    setBusy(null);
    if (result.error || !result.key || !result.summary)
      return setError(result.error?.message ?? "The key could not be created.");
    setName("");
    setRevealed({
      secret: result.key,
      title: `Your new key “${result.summary.name}”`,
      detail: `Key ${maskedKey(result.summary)} is active now.`,
    });
    router.refresh();
  }

  async function confirm() {
    if (!pending) return;
    const { kind, key } = pending;
    setBusy(kind);
    setError(null);
    setNotice(null);
    const result = await call(`/portal/api/keys/${key.id}/${kind}`, {});
    setBusy(null);
    setPending(null);
    if (result.error) return setError(result.error.message);
    if (result.confirmed === false) setNotice(result.notice ?? "The change is saved but not yet confirmed everywhere.");
    if (kind === "rotate" && result.key && result.summary) {
      setRevealed({
        secret: result.key,
        title: `Your rotated key “${result.summary.name}”`,
        detail: `${maskedKey(key)} no longer works. Its replacement ${maskedKey(result.summary)} is active now.`,
      });
    }
    router.refresh();
  }

  return (
    <div className="space-y-6" data-testid="keys-manager" data-ready={hydrated ? "true" : undefined}>
      {/* Keyed by the secret: a new secret is a new panel, so nothing (the copied state) carries over. */}
      {revealed ? <SecretReveal key={revealed.secret} {...revealed} onDone={() => setRevealed(null)} /> : null}

      <section aria-labelledby="create-key" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="create-key" className="font-semibold text-slate-900">
            Create a key
          </h2>
          <p className="text-sm text-slate-600" data-testid="active-count">
            {active.length} of {maxActive} active keys
          </p>
        </div>
        <form onSubmit={(e) => void mint(e)} className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
          <div className="flex-1">
            <label htmlFor="key-name" className="block text-sm font-medium text-slate-900">
              Key name <span className="font-normal text-slate-500">(optional)</span>
            </label>
            <input
              id="key-name"
              name="name"
              value={name}
              maxLength={60}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. production server"
              className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand focus:ring-2 focus:ring-brand/30 focus:outline-none"
            />
          </div>
          <button
            type="submit"
            disabled={!hydrated || busy !== null || full}
            aria-describedby={full ? "create-key-full" : undefined}
            className="rounded-md bg-brand px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-dark disabled:cursor-not-allowed disabled:bg-slate-500"
          >
            {busy === "mint" ? "Creating…" : "Create key"}
          </button>
        </form>
        {full ? (
          <p id="create-key-full" className="mt-3 text-sm text-slate-700" data-testid="create-key-full">
            You have {active.length} of {maxActive} active keys, the most an account may hold. Revoke a key you no
            longer use to create another, or rotate one to replace its secret.
          </p>
        ) : null}
        {error ? (
          <p role="alert" className="mt-3 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {error}
          </p>
        ) : null}
        {notice ? (
          <p
            role="alert"
            data-testid="revocation-notice"
            className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900"
          >
            {notice}
          </p>
        ) : null}
      </section>

      {keys.length === 0 ? (
        <section
          aria-label="Your API keys"
          className="rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center"
        >
          <p className="font-medium text-slate-900">No keys yet</p>
          <p className="mt-1 text-sm text-slate-600">
            Create your first key above, then call the API with it. Its usage appears here.
          </p>
        </section>
      ) : (
        <KeysTable
          title="Your API keys"
          keys={[...active, ...inactive]}
          onAction={(kind, key) => setPending({ kind, key })}
          busy={!hydrated || busy !== null}
        />
      )}

      <ConfirmDialog
        open={pending?.kind === "rotate"}
        title={`Rotate “${pending?.key.name ?? ""}”?`}
        confirmLabel="Rotate key"
        tone="primary"
        busy={busy === "rotate"}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      >
        <p>
          A new secret replaces <code className="font-mono">{pending ? maskedKey(pending.key) : ""}</code>. The current
          secret stops working immediately, for every request that uses it.
        </p>
        <p>The new key is shown once. Its limits and your usage history stay with the account.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === "revoke"}
        title={`Revoke “${pending?.key.name ?? ""}”?`}
        confirmLabel="Revoke key"
        tone="danger"
        busy={busy === "revoke"}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      >
        <p>
          Every request with <code className="font-mono">{pending ? maskedKey(pending.key) : ""}</code> will be refused
          with <code className="font-mono">invalid_api_key</code> from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function KeysTable({
  title,
  keys,
  onAction,
  busy,
}: {
  title: string;
  keys: PortalKey[];
  onAction: (kind: "rotate" | "revoke", key: PortalKey) => void;
  busy: boolean;
}) {
  return (
    <section
      aria-labelledby="keys-heading"
      className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm"
    >
      <h2 id="keys-heading" className="border-b border-slate-200 px-5 py-3 font-semibold text-slate-900">
        {title}
      </h2>
      {/* Phones: one card per key, its actions on a row of their own. From md up: the table. */}
      <ul className="divide-y divide-slate-100 md:hidden" data-testid="key-cards">
        {keys.map((key) => (
          <li
            key={key.id}
            data-testid="key-card"
            data-key-id={key.id}
            data-status={key.status}
            className={`space-y-2 px-4 py-4 text-sm ${key.status === "active" ? "" : "text-slate-500"}`}
          >
            <div className="flex items-start justify-between gap-3">
              <h3 className="min-w-0 font-medium break-words text-slate-900">{key.name}</h3>
              <StatusBadge status={key.status} />
            </div>
            <p className="font-mono break-all">{maskedKey(key)}</p>
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-slate-600">
              <dt>Created</dt>
              <dd>{formatUtc(key.createdAt)}</dd>
              <dt>Last used</dt>
              <dd>{formatUtc(key.lastUsedAt)}</dd>
              <dt>Limits</dt>
              <dd>{`${formatCount(key.limitMinute)}/min, ${formatCount(key.limitDay)}/day`}</dd>
            </dl>
            <KeyActions keyItem={key} onAction={onAction} busy={busy} className="flex flex-wrap gap-2 pt-1" />
          </li>
        ))}
      </ul>
      {/* relative: the sr-only header is absolutely positioned and must stay inside this scroll box */}
      <div className="relative hidden overflow-x-auto md:block" data-testid="keys-table-scroll">
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <thead className="bg-slate-50 text-left text-xs font-medium tracking-wide text-slate-500 uppercase">
            <tr>
              <th scope="col" className="px-3 py-2 first:pl-5">
                Name
              </th>
              <th scope="col" className="px-3 py-2">
                Key
              </th>
              <th scope="col" className="px-3 py-2">
                Status
              </th>
              <th scope="col" className="px-3 py-2">
                Created
              </th>
              <th scope="col" className="px-3 py-2">
                Last used
              </th>
              <th scope="col" className="px-3 py-2">
                Limits
              </th>
              <th scope="col" className="px-3 py-2 pr-5">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {keys.map((key) => (
              <tr
                key={key.id}
                data-testid="key-row"
                data-key-id={key.id}
                data-status={key.status}
                className={key.status === "active" ? "" : "text-slate-500"}
              >
                <th scope="row" className="py-3 pr-3 pl-5 text-left font-medium break-words text-slate-900">
                  {key.name}
                </th>
                <td className="px-3 py-3 font-mono whitespace-nowrap" data-testid="key-masked">
                  {maskedKey(key)}
                </td>
                <td className="px-3 py-3">
                  <StatusBadge status={key.status} />
                </td>
                <td className="px-3 py-3">
                  <WrappingTime value={key.createdAt} />
                </td>
                <td className="px-3 py-3">
                  <WrappingTime value={key.lastUsedAt} />
                </td>
                <td className="px-3 py-3">
                  <span className="whitespace-nowrap">{formatCount(key.limitMinute)}/min</span>{" "}
                  <span className="whitespace-nowrap">{formatCount(key.limitDay)}/day</span>
                </td>
                <td className="py-3 pr-5 pl-3">
                  <KeyActions
                    keyItem={key}
                    onAction={onAction}
                    busy={busy}
                    className="flex flex-wrap justify-end gap-2"
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Usage, and for an active key Rotate and Revoke, each named with the key's name and masked secret. */
function KeyActions({
  keyItem: key,
  onAction,
  busy,
  className,
}: {
  keyItem: PortalKey;
  onAction: (kind: "rotate" | "revoke", key: PortalKey) => void;
  busy: boolean;
  className: string;
}) {
  return (
    <div className={className}>
      <Link
        href={`/portal/keys/${key.id}`}
        aria-label={`Usage of ${key.name} (${maskedKey(key)})`}
        className="rounded-md px-2.5 py-1 font-medium no-underline ring-1 ring-slate-300 hover:bg-slate-50"
      >
        Usage
      </Link>
      {key.status === "active" ? (
        <>
          <button
            type="button"
            disabled={busy}
            onClick={() => onAction("rotate", key)}
            aria-label={`Rotate ${key.name} (${maskedKey(key)})`}
            className="rounded-md px-2.5 py-1 font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
          >
            Rotate
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => onAction("revoke", key)}
            aria-label={`Revoke ${key.name} (${maskedKey(key)})`}
            className="rounded-md px-2.5 py-1 font-medium text-rose-700 ring-1 ring-rose-200 hover:bg-rose-50"
          >
            Revoke
          </button>
        </>
      ) : null}
    </div>
  );
}

/** A UTC time that may break between the date and the time, so the table fits its card. */
function WrappingTime({ value }: { value: string | null }) {
  const text = formatUtc(value);
  const cut = text.indexOf(" ");
  if (cut < 0) return <span className="whitespace-nowrap">{text}</span>;
  return (
    <>
      <span className="whitespace-nowrap">{text.slice(0, cut)}</span>{" "}
      <span className="whitespace-nowrap">{text.slice(cut + 1)}</span>
    </>
  );
}
