import { Inline } from "./inline";

/**
 * Tables for MDX (plain MDX has no GFM tables): `head` and `rows` are strings with inline
 * `code`, [links](/docs/...) and **bold**. `code` renders the first column as code.
 */
export function Table({ head, rows, code = false }: { head: string[]; rows: string[][]; code?: boolean }) {
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
