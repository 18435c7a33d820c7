"use client";

import { useState } from "react";
import { useHydrated } from "@/components/portal/use-hydrated";

const USES = [
  ["internal", "Internal use in a commercial organisation"],
  ["product", "In a product or service we sell"],
  ["redistribution", "Redistribution of the data itself"],
  ["research", "Published research or media"],
  ["other", "Something else"],
] as const;

const FIELD =
  "mt-1 block w-full rounded-md border border-slate-400 px-3 py-2 text-sm shadow-sm focus:border-brand focus:ring-2 focus:ring-brand/30 focus:outline-none";

/** The commercial licence request: posted with the session's CSRF token, answered with a reference. */
export function LicenseRequestForm({ csrf, email }: { csrf: string; email: string }) {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ reference: string; acknowledged: boolean } | null>(null);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/portal/api/license-requests", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(Object.fromEntries(form.entries())),
      });
      const json = (await res.json().catch(() => ({}))) as {
        reference?: string;
        acknowledged?: boolean;
        error?: { message: string };
      };
      if (res.ok && json.reference) setDone({ reference: json.reference, acknowledged: json.acknowledged === true });
      else setError(json.error?.message ?? "The request could not be sent. Reload the page and try again.");
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <div
        role="status"
        className="rounded-lg border border-emerald-200 bg-emerald-50 p-5 text-sm text-slate-800"
        data-testid="license-request-done"
        data-reference={done.reference}
      >
        <p className="font-semibold text-emerald-900">Request {done.reference} received.</p>
        <p className="mt-1">
          {done.acknowledged
            ? `A confirmation is on its way to ${email}. `
            : "We stored your request; the confirmation mail could not be sent, but we will reply. "}
          We answer within two business days.
        </p>
      </div>
    );
  }

  return (
    <form
      onSubmit={(e) => void submit(e)}
      className="space-y-4"
      data-testid="license-request-form"
      data-ready={hydrated ? "true" : undefined}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor="lr-name" className="block text-sm font-medium text-slate-900">
            Your name
          </label>
          <input id="lr-name" name="name" required maxLength={120} autoComplete="name" className={FIELD} />
        </div>
        <div>
          <label htmlFor="lr-org" className="block text-sm font-medium text-slate-900">
            Organisation
          </label>
          <input
            id="lr-org"
            name="organization"
            required
            maxLength={160}
            autoComplete="organization"
            className={FIELD}
          />
        </div>
      </div>
      <div>
        <label htmlFor="lr-use" className="block text-sm font-medium text-slate-900">
          How will you use the data?
        </label>
        <select id="lr-use" name="useCase" required defaultValue="" className={FIELD}>
          <option value="" disabled>
            Choose one
          </option>
          {USES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="lr-dist" className="block text-sm font-medium text-slate-900">
          Who will see the data or what you build with it?
        </label>
        <input
          id="lr-dist"
          name="distribution"
          required
          maxLength={500}
          placeholder="e.g. our trading desk; subscribers of our newsletter"
          className={FIELD}
        />
      </div>
      <div>
        <label htmlFor="lr-msg" className="block text-sm font-medium text-slate-900">
          Anything else <span className="font-normal text-slate-600">(optional)</span>
        </label>
        <textarea id="lr-msg" name="message" rows={4} maxLength={4000} className={FIELD} />
      </div>
      <p className="text-sm text-slate-700">
        We reply to <strong className="font-medium text-slate-900">{email}</strong>, the address you signed in with.
      </p>
      {error ? (
        <p role="alert" className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={!hydrated || busy}
        className="rounded-md bg-brand px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-dark disabled:cursor-not-allowed disabled:bg-slate-500"
      >
        {busy ? "Sending…" : "Request a licence"}
      </button>
    </form>
  );
}
