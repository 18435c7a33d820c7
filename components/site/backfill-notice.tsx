import { backfillMessage } from "@/lib/site/backfill-notice";
import { root } from "@/lib/root";

/**
 * While the start-up backfill runs, the data is not all there: says so, with how far it is, in
 * place of values that would stop at an old hour. Renders nothing once it is done.
 */
export function BackfillNotice({ what = "The values on this page" }: { what?: string }) {
  const p = root().progress;
  if (p.state !== "running") return null;
  const { pct, progress } = backfillMessage(p);
  return (
    <div
      role="status"
      className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
      data-testid="backfill-notice"
      data-hours-done={p.hoursDone}
      data-hours-total={p.hoursTotal ?? ""}
      data-through={p.through ?? ""}
    >
      <p className="font-semibold">The service is computing its history after starting: {progress}.</p>
      <p className="mt-1">
        {what} will be complete when it finishes; until then they stop at the last computed hour. Reload the page to see
        the progress (also at <a href="/healthz">/healthz</a>).
      </p>
      {pct !== null && (
        <div className="mt-2 h-1.5 w-full max-w-md overflow-hidden rounded bg-amber-200" aria-hidden="true">
          <div className="h-full bg-amber-600" style={{ width: `${pct}%` }} />
        </div>
      )}
    </div>
  );
}

/** True while the backfill runs: list pages show the notice instead of tables of old values. */
export function backfilling(): boolean {
  return root().progress.state === "running";
}

/** An address whose data the start-up backfill has not reached yet: the progress, not a 404. */
export function BackfillPending({ what }: { what: string }) {
  return (
    <article className="space-y-4" data-testid="backfill-pending">
      <h1 className="text-3xl font-semibold tracking-tight">Not computed yet</h1>
      <BackfillNotice what={`The values of ${what}`} />
    </article>
  );
}
