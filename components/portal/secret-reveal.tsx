"use client";

import { useEffect, useRef, useState } from "react";

/** A freshly minted or rotated key: shown once, with a copy button and the warning that says so. */
export function SecretReveal({
  secret,
  title,
  detail,
  onDone,
}: {
  secret: string;
  title: string;
  detail: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  const fieldRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    headingRef.current?.focus();
  }, [secret]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("copied");
    } catch {
      // No clipboard permission (or not a secure context): select the text for a manual copy.
      fieldRef.current?.select();
      setCopied("failed");
    }
  }

  return (
    <section
      aria-labelledby="secret-heading"
      className="rounded-lg border border-emerald-300 bg-emerald-50 p-5 shadow-sm"
      data-testid="secret-reveal"
    >
      <h2
        id="secret-heading"
        ref={headingRef}
        tabIndex={-1}
        className="text-lg font-semibold text-emerald-950 focus:outline-none"
      >
        {title}
      </h2>
      <p className="mt-1 text-sm text-emerald-900">{detail}</p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row">
        <label htmlFor="new-secret" className="sr-only">
          New API key
        </label>
        <input
          id="new-secret"
          ref={fieldRef}
          readOnly
          value={secret}
          data-testid="new-secret"
          onFocus={(e) => e.currentTarget.select()}
          spellCheck={false}
          className="min-w-0 flex-1 rounded-md border border-emerald-300 bg-white px-3 py-2 font-mono text-sm text-slate-900"
        />
        <button
          type="button"
          onClick={() => void copy()}
          className="rounded-md bg-emerald-700 px-4 py-2 text-sm font-semibold text-white hover:bg-emerald-800"
        >
          {copied === "copied" ? "Copied" : "Copy key"}
        </button>
      </div>
      <p aria-live="polite" className="mt-2 min-h-5 text-sm text-emerald-900">
        {copied === "copied"
          ? "The key is on your clipboard."
          : copied === "failed"
            ? "Copying is blocked here: the key is selected, press Ctrl+C (⌘C)."
            : ""}
      </p>
      <p role="note" className="mt-2 flex gap-2 rounded-md bg-amber-100 px-3 py-2 text-sm font-medium text-amber-950">
        <span aria-hidden="true">⚠</span>
        Copy this key now and store it somewhere safe. It cannot be shown again: we keep only a hash of it.
      </p>
      <button
        type="button"
        onClick={onDone}
        className="mt-4 text-sm font-medium text-emerald-900 underline-offset-2 hover:underline"
      >
        I have stored the key, hide it
      </button>
    </section>
  );
}
