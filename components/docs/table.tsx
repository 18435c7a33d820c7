import { withBaseUrl } from "@/lib/docs/base-url";
import { TableView } from "./table-view";

/** The configured address in a cell's `code` spans, where the docs sources write the example one. */
function shownCell(cell: string): string {
  return cell.replace(/`[^`]+`/g, (span) => withBaseUrl(span));
}

/**
 * Tables for MDX (plain MDX has no GFM tables): `head` and `rows` are strings with inline
 * `code`, [links](/docs/...) and **bold**. `code` renders the first column as code.
 */
export function Table({ head, rows, code = false }: { head: string[]; rows: string[][]; code?: boolean }) {
  return <TableView head={head.map(shownCell)} rows={rows.map((row) => row.map(shownCell))} code={code} />;
}
