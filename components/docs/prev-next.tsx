import Link from "next/link";
import { docHref, navLabel, type DocPage } from "@/lib/docs/pages";

export function PrevNext({ prev, next }: { prev: DocPage | null; next: DocPage | null }) {
  return (
    <nav
      aria-label="Previous and next pages"
      className="no-underline mt-16 grid gap-3 border-t border-slate-200 pt-6 sm:grid-cols-2"
    >
      {prev ? (
        <Link
          href={docHref(prev)}
          rel="prev"
          className="no-underline rounded-lg border border-slate-200 px-4 py-3 hover:border-slate-400"
        >
          <span className="block text-xs text-slate-500">Previous</span>
          <span className="font-medium">{navLabel(prev)}</span>
        </Link>
      ) : (
        <span />
      )}
      {next ? (
        <Link
          href={docHref(next)}
          rel="next"
          className="rounded-lg border border-slate-200 px-4 py-3 text-right hover:border-slate-400"
        >
          <span className="block text-xs text-slate-500">Next</span>
          <span className="font-medium">{navLabel(next)}</span>
        </Link>
      ) : null}
    </nav>
  );
}
