"use client";

import { useEffect, useId, useRef } from "react";

/** A modal confirmation on the native <dialog> (focus trap, Escape and inertness for free). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  tone: "danger" | "primary";
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
      className="m-auto w-full max-w-md rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="p-6">
        <h2 id={titleId} className="text-lg font-semibold text-slate-900">
          {props.title}
        </h2>
        <div id={bodyId} className="mt-2 space-y-2 text-sm text-slate-700">
          {props.children}
        </div>
        <div className="mt-6 flex justify-end gap-3">
          <button
            type="button"
            onClick={props.onCancel}
            disabled={props.busy}
            className="rounded-md px-3 py-2 text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"
          >
            Cancel
          </button>
          <button
            type="button"
            onClick={props.onConfirm}
            disabled={props.busy}
            className={`rounded-md px-3 py-2 text-sm font-semibold text-white disabled:opacity-70 ${
              props.tone === "danger" ? "bg-rose-600 hover:bg-rose-700" : "bg-brand hover:bg-brand-dark"
            }`}
          >
            {props.busy ? "Working…" : props.confirmLabel}
          </button>
        </div>
      </div>
    </dialog>
  );
}
