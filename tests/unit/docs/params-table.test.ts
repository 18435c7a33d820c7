import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ENDPOINT_NAMES, type EndpointName } from "@/lib/api/endpoint-table";
import { ERROR_CODES, ERRORS } from "@/lib/api/errors";
import { endpointParameters } from "@/lib/openapi/document";
import { queryParams, reconstitutionsQuery, volatilityHistoryQuery } from "@/lib/api/params";
import { CONTENT_DIR } from "@/lib/docs/content";
import { errorStatusRows } from "@/lib/docs/error-reference";
import { sectionsOf } from "@/lib/docs/outline";
import { DOC_PAGES } from "@/lib/docs/pages";
import { paramRows } from "@/lib/docs/params-table";
import { renderDocPage } from "./render-mdx";

const source = (file: string) => readFileSync(path.join(CONTENT_DIR, file), "utf8");
const withParams = ENDPOINT_NAMES.filter((name) => endpointParameters(name).length > 0);
const pagesOf = (name: EndpointName) =>
  DOC_PAGES.filter((p) => source(p.file).includes(`<ParamsTable endpoint="${name}" />`));
/** Text as the rendered HTML shows it (entities decoded, inline code and links flattened). */
const visible = (html: string) =>
  html
    .replaceAll(/<[^>]+>/g, "")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&amp;", "&");
const flat = (cell: string) => cell.replaceAll(/\[([^\]]*)\]\([^)]*\)/g, "$1").replaceAll("`", "");

describe("the docs' parameter tables come from the parameter table", () => {
  test("no docs page writes a parameter table by hand", () => {
    for (const page of DOC_PAGES) expect(source(page.file), page.file).not.toMatch(/head=\{\["Parameter"/);
  });

  test.each(withParams)("%s: its reference page renders every parameter row from lib/api/params.ts", async (name) => {
    const pages = pagesOf(name);
    expect(pages.map((p) => p.file)).toHaveLength(1);
    const html = visible(await renderDocPage(pages[0]!));
    const rows = paramRows(name);
    expect(rows.map((r) => r[0])).toEqual(endpointParameters(name).map((p) => p.name));
    for (const row of rows) for (const cell of row) expect(html).toContain(flat(cell));
  });

  test("a row reads the declaration: range, default and the error of a bad value", () => {
    const limit = queryParams(reconstitutionsQuery).find((p) => p.name === "limit")!;
    const row = paramRows("indexReconstitutions").find((r) => r[0] === "limit")!;
    expect(row[3]).toBe(String(limit.default));
    expect(row[4]).toContain(`Outside ${limit.minimum} to ${limit.maximum} gives`);
    expect(row[4]).toContain("invalid_parameter");
    expect(paramRows("indexHistory").find((r) => r[0] === "interval")![4]).toContain("invalid_interval");
    const gated = queryParams(volatilityHistoryQuery).find((p) => p.name === "includeGated")!;
    expect(paramRows("volatilityHistory").find((r) => r[0] === "includeGated")![4]).toContain(gated.description);
  });

  test("the search text of a page holds its generated table's rows", () => {
    const page = pagesOf("volatilityHistory")[0]!;
    const text = sectionsOf(source(page.file))
      .map((s) => s.text)
      .join(" ");
    expect(text).toContain("includeGated");
    expect(text).toContain("5000");
  });
});

describe("the errors page's status table comes from the error table", () => {
  test("every code appears once, under its own status", () => {
    const rows = errorStatusRows();
    const listed = rows.flatMap((r) => [...r[1]!.matchAll(/`(\w+)`/g)].map((m) => [m[1], r[0]]));
    expect(listed.map(([c]) => c).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, status] of listed) {
      const own = ERRORS[code as keyof typeof ERRORS].status;
      expect(status).toBe(own === null ? "any other" : String(own));
    }
  });

  test("the errors page renders it", async () => {
    const page = DOC_PAGES.find((p) => source(p.file).includes("<ErrorCodes />"))!;
    const html = visible(await renderDocPage(page));
    for (const row of errorStatusRows()) for (const cell of row) expect(html).toContain(flat(cell));
  });
});
