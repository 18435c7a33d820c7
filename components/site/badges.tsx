import { statusText } from "@/lib/site/format";

const TONE: Readonly<Record<string, { box: string; dot: string }>> = {
  active: { box: "bg-emerald-50 text-emerald-700 ring-emerald-600/20", dot: "bg-emerald-500" },
  ok: { box: "bg-emerald-50 text-emerald-700 ring-emerald-600/20", dot: "bg-emerald-500" },
  published: { box: "bg-emerald-50 text-emerald-700 ring-emerald-600/20", dot: "bg-emerald-500" },
  flagged: { box: "bg-amber-50 text-amber-800 ring-amber-600/20", dot: "bg-amber-500" },
  ceased: { box: "bg-slate-100 text-slate-700 ring-slate-500/20", dot: "bg-slate-400" },
  resolved: { box: "bg-sky-50 text-sky-800 ring-sky-600/20", dot: "bg-sky-500" },
  suspended: { box: "bg-rose-50 text-rose-700 ring-rose-600/20", dot: "bg-rose-500" },
  withheld: { box: "bg-rose-50 text-rose-700 ring-rose-600/20", dot: "bg-rose-500" },
};

const FALLBACK = { box: "bg-slate-100 text-slate-700 ring-slate-500/20", dot: "bg-slate-400" };

/** Publication status of an index, or status / publication state of a volatility value. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  const tone = TONE[status] ?? FALLBACK;
  return (
    <span
      data-testid={testId}
      data-status={status}
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tone.box}`}
    >
      <span aria-hidden="true" className={`h-1.5 w-1.5 rounded-full ${tone.dot}`} />
      {statusText(status)}
    </span>
  );
}

/** Shown when the latest level rests on stale inputs. */
export function StaleBadge() {
  return (
    <span
      data-testid="stale-badge"
      title="Some constituents' latest quotes are older than the staleness limit"
      className="inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-800 ring-1 ring-amber-600/20 ring-inset"
    >
      Stale
    </span>
  );
}
