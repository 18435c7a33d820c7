"use client";

import { Inline } from "./inline";

// A client component on purpose: the page's React Server Components payload then carries each
// table as its cell strings, instead of one element per cell, link and code span (which was most
// of the weight of the long reference pages). The HTML is rendered on the server all the same.

/** The table of components/docs/table.tsx, from cell strings whose example address is already replaced. */
export function TableView({ head, rows, code }: { head: string[]; rows: string[][]; code: boolean }) {
  return (
    <div className="doc-table">
      <table>
        <thead>
          <tr>
            {head.map((cell, i) => (
              <th key={i} scope="col">
                <Inline text={cell} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => (
                <td key={c}>
                  {code && c === 0 && !cell.includes("`") ? (
                    <code className="doc-key">{cell}</code>
                  ) : (
                    <Inline text={cell} />
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
