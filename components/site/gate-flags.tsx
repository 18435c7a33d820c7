import { gateMeaning } from "@/lib/site/gates";

interface Flag {
  gate: string;
  legKey: string | null;
  publicDetail: string;
}

/** Gate flags in plain words: what happened (publicDetail) and what the check is for. */
export function GateFlags({ flags, testId }: { flags: Flag[]; testId: string }) {
  if (flags.length === 0) {
    return (
      <p className="text-sm text-slate-600" data-testid={testId} data-count={0}>
        No gate flagged this value.
      </p>
    );
  }
  return (
    <ul className="space-y-2" data-testid={testId} data-count={flags.length}>
      {flags.map((f, i) => (
        <li
          key={`${f.gate}-${f.legKey ?? ""}-${i}`}
          className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm"
          data-gate={f.gate}
        >
          <p className="text-slate-900">{f.publicDetail}</p>
          <p className="mt-0.5 text-xs text-slate-600">
            <span className="font-mono">{f.gate}</span>
            {f.legKey && (
              <>
                {" "}
                on leg <span className="font-mono">{f.legKey}</span>
              </>
            )}
            : {gateMeaning(f.gate)}
          </p>
        </li>
      ))}
    </ul>
  );
}
