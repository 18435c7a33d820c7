"use client";

import { useId, useState } from "react";
import { useHydrated } from "@/components/portal/use-hydrated";

type State =
  | { status: "idle" | "sending"; email: string; message: string | null }
  | { status: "sent"; email: string; message: null };

/**
 * One form for registering and signing in. Posts to /api/auth/request-link; with JavaScript the
 * answer arrives as JSON and shows in place, without it the server redirects back to the page.
 */
export function SignInForm(props: {
  initialEmail?: string;
  initialError?: string | null;
  sentTo?: string | null;
  minutes: number;
  submitLabel?: string;
}) {
  const [state, setState] = useState<State>(
    props.sentTo
      ? { status: "sent", email: props.sentTo, message: null }
      : { status: "idle", email: props.initialEmail ?? "", message: props.initialError ?? null },
  );
  const id = useId();
  const hydrated = useHydrated();
  const inputId = `${id}-email`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;

  async function send(email: string) {
    setState({ status: "sending", email, message: null });
    const body = new URLSearchParams({ email });
    try {
      const res = await fetch("/api/auth/request-link", {
        method: "POST",
        body,
        headers: { Accept: "application/json" },
      });
      const json = (await res.json().catch(() => null)) as { email?: string; error?: { message?: string } } | null;
      if (res.ok) setState({ status: "sent", email: json?.email ?? email, message: null });
      else {
        const fallback =
          res.status === 503
            ? "Sign-in is temporarily unavailable. Please try again in a minute."
            : "Something went wrong. Try again in a minute.";
        setState({ status: "idle", email, message: json?.error?.message ?? fallback });
      }
    } catch {
      setState({ status: "idle", email, message: "Could not reach the server. Check your connection and try again." });
    }
  }

  if (state.status === "sent") {
    return (
      <div role="status" aria-live="polite" className="rounded-lg border border-emerald-200 bg-emerald-50 p-5">
        <h2 className="text-lg font-semibold text-emerald-900">Check your inbox</h2>
        <p className="mt-2 text-sm text-emerald-900">
          We sent a sign-in link to <strong className="break-all">{state.email}</strong>. It works once and expires in{" "}
          {props.minutes} minutes.
        </p>
        <p className="mt-2 text-sm text-emerald-800">
          Nothing there after a minute? Check your spam folder, then send another link.
        </p>
        <div className="mt-4 flex flex-wrap gap-3">
          <button
            type="button"
            onClick={() => void send(state.email)}
            className="rounded-md bg-white px-3 py-1.5 text-sm font-medium text-emerald-900 ring-1 ring-emerald-300 hover:bg-emerald-100"
          >
            Send another link
          </button>
          <button
            type="button"
            onClick={() => setState({ status: "idle", email: "", message: null })}
            className="rounded-md px-3 py-1.5 text-sm font-medium text-emerald-900 hover:underline"
          >
            Use a different address
          </button>
        </div>
      </div>
    );
  }

  const sending = state.status === "sending";
  return (
    <form
      action="/api/auth/request-link"
      method="post"
      noValidate
      data-testid="sign-in-form"
      data-ready={hydrated ? "true" : undefined}
      onSubmit={(event) => {
        event.preventDefault();
        const email = String(new FormData(event.currentTarget).get("email") ?? "");
        void send(email);
      }}
      className="space-y-4"
    >
      <div>
        <label htmlFor={inputId} className="block text-sm font-medium text-slate-900">
          Work e-mail
        </label>
        <input
          id={inputId}
          name="email"
          type="email"
          required
          autoComplete="email"
          inputMode="email"
          placeholder="you@company.com"
          defaultValue={state.email}
          key={state.email}
          aria-invalid={state.message ? true : undefined}
          aria-describedby={state.message ? `${errorId} ${hintId}` : hintId}
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-brand focus:ring-2 focus:ring-brand/30 focus:outline-none aria-invalid:border-rose-400"
        />
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          No password. Addresses at free mail providers (Gmail, Outlook.com, Yahoo and others) are not accepted.
        </p>
        {state.message ? (
          <p id={errorId} role="alert" className="mt-2 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {state.message}
          </p>
        ) : null}
      </div>
      <button
        type="submit"
        disabled={sending}
        className="inline-flex w-full items-center justify-center rounded-md bg-brand px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-dark disabled:cursor-wait disabled:opacity-70"
      >
        {sending ? "Sending…" : (props.submitLabel ?? "Email me a sign-in link")}
      </button>
    </form>
  );
}
