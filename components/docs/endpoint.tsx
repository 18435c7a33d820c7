/** The method and path of an endpoint, as a banner at the top of its reference page. */
export function Endpoint({ method = "GET", path }: { method?: string; path: string }) {
  return (
    <p className="not-prose my-4 flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm">
      <span className="rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-bold text-emerald-800">{method}</span>
      <span className="break-all text-slate-900">{path}</span>
    </p>
  );
}
