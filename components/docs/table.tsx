import { Inline } from "./inline";

/**
 * Tables for MDX (plain MDX has no GFM tables): `head` and `rows` are strings with inline
 * `code`, [links](/docs/...) and **bold**. `code` renders the first column as code.
 */
export function Table({ head, rows, code = false }: { head: string[]; rows: string[][]; code?: boolean }) {
  return (
    <div className="my-5 overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full border-collapse text-left text-sm">
        <thead className="bg-slate-50">
          <tr>
            {head.map((cell, i) => (
              <th key={i} scope="col" className="border-b border-slate-200 px-3 py-2 font-semibold text-slate-700">
                <Inline text={cell} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r} className="border-b border-slate-100 align-top last:border-0">
              {row.map((cell, c) => (
                <td key={c} className="px-3 py-2 text-slate-700 [&_code]:[overflow-wrap:normal]">
                  {code && c === 0 && !cell.includes("`") ? (
                    <code className="font-mono text-[0.85rem] whitespace-nowrap text-slate-900">{cell}</code>
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
