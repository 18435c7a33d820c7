import type { ReactNode } from "react";
import { ScrollFrame } from "@/components/site/scroll-frame";

export interface DataColumn {
  label: ReactNode;
  /** numbers are right-aligned, in the header as in the cells */
  numeric?: boolean;
  /** extra classes of the header cell, e.g. `hidden sm:table-cell` for a column folded into another on phones */
  className?: string;
}

/** A header that stays in view while its box scrolls. */
export const STICKY_HEAD = "sticky top-0 bg-slate-50";

/** The header of the catalog tables (indices, volatility series). */
export const CATALOG_HEAD = "bg-slate-50 text-slate-700";

/**
 * A data table in its bordered, scrolling box: an sr-only caption, one header row of columns and
 * the caller's body rows. Without columns there is no header (a list of terms and values).
 */
export function DataTable({
  caption,
  columns,
  testId,
  frameClassName = "relative overflow-x-auto rounded-lg border border-slate-200",
  frameTestId,
  headClassName = "bg-slate-50",
  dense = false,
  footer,
  children,
}: {
  caption: ReactNode;
  columns?: readonly DataColumn[];
  testId?: string;
  frameClassName?: string;
  frameTestId?: string;
  headClassName?: string;
  /** header cells padded for single-line value rows */
  dense?: boolean;
  /** inside the box, below the table */
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <ScrollFrame
      className={frameClassName}
      testId={frameTestId}
      label={typeof caption === "string" ? caption : undefined}
    >
      <table className="w-full border-collapse text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        {columns && (
          <thead className={headClassName}>
            <tr>
              {columns.map((c, i) => (
                <th
                  key={i}
                  scope="col"
                  className={`px-3 ${dense ? "py-1.5" : "py-2"}${c.numeric ? " text-right" : ""} font-semibold${c.className ? ` ${c.className}` : ""}`}
                >
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
        )}
        <tbody>{children}</tbody>
      </table>
      {footer}
    </ScrollFrame>
  );
}
