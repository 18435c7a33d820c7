import Link from "next/link";

export function SiteFooter({ attribution }: { attribution: string }) {
  return (
    <footer className="mt-16 border-t border-slate-200 bg-slate-50">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 px-4 py-6 text-sm text-slate-600 sm:flex-row sm:justify-between">
        <p data-testid="attribution">{attribution}</p>
        <p className="flex gap-4">
          <Link href="/terms">Terms</Link>
          <Link href="/license">License</Link>
          <Link href="/docs">Docs</Link>
        </p>
      </div>
    </footer>
  );
}
