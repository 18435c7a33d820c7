import Link from "next/link";

export function SiteFooter({ attribution }: { attribution: string }) {
  return (
    <footer className="mt-16 border-t border-slate-200 bg-slate-50">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 px-4 py-6 text-sm text-slate-700 sm:flex-row sm:justify-between">
        <p data-testid="attribution">{attribution}</p>
        <p className="flex flex-wrap gap-x-4 gap-y-1">
          <Link href="/status">Status</Link>
          <Link href="/changelog">Changelog</Link>
          <Link href="/terms">Terms</Link>
          <Link href="/license">License</Link>
          <Link href="/docs">Docs</Link>
        </p>
      </div>
    </footer>
  );
}
