import { UtcTime } from "@/components/site/utc-time";
import type { IncidentView } from "@/lib/data/status";

const SOURCE: Record<IncidentView["source"], string> = {
  auto: "recorded by the service",
  operator: "posted by the operator",
  detected: "detected now",
};

/** Incidents with their notes, oldest note first. */
export function IncidentList({ incidents, testId = "incident" }: { incidents: IncidentView[]; testId?: string }) {
  return (
    <ul className="space-y-3 text-sm" data-testid={`${testId}s`}>
      {incidents.map((i, n) => (
        <li
          key={i.ref ?? `detected-${n}`}
          data-testid={testId}
          data-ref={i.ref ?? ""}
          data-severity={i.severity}
          data-subject={i.subject}
          data-source={i.source}
          data-resolved={i.resolvedAt ?? ""}
        >
          <p>
            <span
              className={`mr-2 rounded px-1.5 py-0.5 text-xs font-semibold ${i.resolvedAt ? "bg-slate-100 text-slate-800" : i.severity === "major" ? "bg-rose-100 text-rose-900" : "bg-amber-100 text-amber-900"}`}
            >
              {i.resolvedAt ? "resolved" : i.severity}
            </span>
            <span className="font-mono text-xs">{i.subject}</span>{" "}
            <span className="font-medium text-slate-900">{i.title}</span>
          </p>
          <p className="mt-0.5 text-xs text-slate-700">
            {i.ref && <span className="mr-2 font-mono">{i.ref}</span>}
            {i.openedAt && (
              <>
                opened <UtcTime value={i.openedAt} />
              </>
            )}
            {i.resolvedAt && (
              <>
                , resolved <UtcTime value={i.resolvedAt} />
              </>
            )}
            <span className="ml-1">({SOURCE[i.source]})</span>
          </p>
          {i.notes.length > 0 && (
            <ol className="mt-1 space-y-0.5 border-l-2 border-slate-200 pl-3 text-slate-700">
              {i.notes.map((note, k) => (
                <li key={k} data-testid="incident-note">
                  <UtcTime value={note.at} />: {note.body}
                </li>
              ))}
            </ol>
          )}
        </li>
      ))}
    </ul>
  );
}
