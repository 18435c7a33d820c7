import type { ChangeView } from "@/lib/site/index-views";

const COLOR = {
  up: "text-emerald-700",
  down: "text-rose-700",
  flat: "text-slate-600",
  none: "text-slate-400",
} as const;
const WORD = { up: "up", down: "down", flat: "unchanged", none: "" } as const;

/** A change in percent, coloured, with its direction in words for screen readers. */
export function Change({ change }: { change: ChangeView | null }) {
  if (!change || change.direction === "none") {
    return (
      <span className={COLOR.none} title="Not enough history for this period">
        —<span className="sr-only">no value: not enough history</span>
      </span>
    );
  }
  const title = change.fromLevel && change.fromT ? `From ${change.fromLevel} at ${change.fromT}` : undefined;
  return (
    <span className={`font-mono tabular-nums ${COLOR[change.direction]}`} title={title} data-change-days={change.days}>
      {change.text}
      <span className="sr-only"> ({WORD[change.direction]})</span>
    </span>
  );
}
