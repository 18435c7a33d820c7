import Link from "next/link";
import type { ReactNode } from "react";

/** The first cell of a catalog row: the name linking to its page, the ticker below it. */
export function CatalogNameCell({
  href,
  name,
  ticker,
  compact = false,
  children,
}: {
  href: string;
  name: string;
  ticker: string;
  compact?: boolean;
  children?: ReactNode;
}) {
  // compact (the home page's tables): narrower on a phone, so every column fits 390 px
  return (
    <td className={`${compact ? "min-w-28 sm:min-w-44" : "min-w-44"} px-3 py-2`}>
      <Link href={href} className="font-medium">
        {name}
      </Link>
      <div className="font-mono text-xs text-slate-500">{ticker}</div>
      {children}
    </td>
  );
}
