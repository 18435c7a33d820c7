import type { ReactNode } from "react";

const TONES = {
  note: { box: "border-sky-200 bg-sky-50", label: "text-sky-800", name: "Note" },
  warning: { box: "border-amber-200 bg-amber-50", label: "text-amber-800", name: "Important" },
  tip: { box: "border-emerald-200 bg-emerald-50", label: "text-emerald-800", name: "Tip" },
} as const;

export function Callout({
  type = "note",
  title,
  children,
}: {
  type?: keyof typeof TONES;
  title?: string;
  children?: ReactNode;
}) {
  const tone = TONES[type];
  return (
    <aside className={`my-5 rounded-lg border px-4 py-3 text-sm text-slate-800 ${tone.box} [&>p]:my-1`}>
      <p className={`font-semibold ${tone.label}`}>{title ?? tone.name}</p>
      {children}
    </aside>
  );
}
