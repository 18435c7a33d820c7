import type { Freshness } from "@/lib/data/status";

const TONE: Record<Freshness, string> = {
  fresh: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  late: "bg-amber-50 text-amber-900 ring-amber-600/20",
  stale: "bg-rose-50 text-rose-800 ring-rose-600/20",
  final: "bg-slate-100 text-slate-700 ring-slate-500/20",
};

const TEXT: Record<Freshness, string> = { fresh: "Fresh", late: "Late", stale: "Stale", final: "Final" };

export function FreshnessBadge({ freshness }: { freshness: Freshness }) {
  return (
    <span
      data-testid="freshness"
      data-freshness={freshness}
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONE[freshness]}`}
    >
      {TEXT[freshness]}
    </span>
  );
}

/** `3 h 20 min`, `45 min`, `2 d 4 h`. */
export function ageText(seconds: number | null): string {
  if (seconds === null) return "never";
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
