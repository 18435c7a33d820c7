import Link from "next/link";
import type { ReactNode } from "react";

/**
 * The top of an index or series page: the breadcrumb back to its catalog, the name, a line with
 * the ticker and the caller's badges (`children`), and the description when there is one.
 */
export function DetailHeader({
  catalog,
  crumb,
  name,
  ticker,
  description,
  children,
}: {
  catalog: { href: string; label: string };
  crumb: string;
  name: string;
  ticker: string;
  description?: string;
  children: ReactNode;
}) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-slate-600">
        <Link href={catalog.href}>{catalog.label}</Link> <span aria-hidden="true">/</span>{" "}
        <span className="font-mono">{crumb}</span>
      </nav>

      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">{name}</h1>
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-mono text-slate-600">{ticker}</span>
          {children}
        </p>
        {description !== undefined && <p className="max-w-3xl text-slate-700">{description}</p>}
      </header>
    </>
  );
}
