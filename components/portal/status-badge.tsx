import { STATUS_LABEL } from "@/lib/portal/format";

const STYLE = {
  active: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  rotated: "bg-slate-100 text-slate-600 ring-slate-500/20",
  revoked: "bg-rose-50 text-rose-700 ring-rose-600/20",
} as const;

export function StatusBadge({ status }: { status: keyof typeof STYLE }) {
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLE[status]}`}
    >
      <span
        aria-hidden="true"
        className={`h-1.5 w-1.5 rounded-full ${status === "active" ? "bg-emerald-500" : status === "revoked" ? "bg-rose-500" : "bg-slate-400"}`}
      />
      {STATUS_LABEL[status]}
    </span>
  );
}
