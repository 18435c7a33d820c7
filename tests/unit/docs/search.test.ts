import { describe, expect, test } from "vitest";
import { buildSearchIndex } from "@/lib/docs/content";
import { DOC_PAGES, docHref } from "@/lib/docs/pages";
import { excerpt, searchDocs } from "@/lib/docs/search";

const index = buildSearchIndex();

describe("search index", () => {
  test("has an entry for every page and every section, with anchors", () => {
    for (const page of DOC_PAGES) expect(index.some((e) => e.h === docHref(page) && e.s === "")).toBe(true);
    for (const e of index.filter((x) => x.s !== "")) expect(e.h).toMatch(/^\/docs(\/[\w/-]+)?#[\w-]+$/);
  });

  test("stays compact enough to ship with the docs layout", () => {
    expect(JSON.stringify(index).length).toBeLessThan(150_000);
  });

  test("includes the generated error sections", () => {
    expect(index.some((e) => e.h === "/docs/errors#rate_limited" && e.s === "rate_limited")).toBe(true);
  });
});

describe("searchDocs", () => {
  test.each([
    ["rate limits", "/docs/limits"],
    ["Rate Limits", "/docs/limits"],
    ["quickstart", "/docs/quickstart"],
    ["methodology", "/docs/methodology"],
    ["rate_limited", "/docs/errors#rate_limited"],
    ["sha256sum", "/docs/downloads"],
    ["chain-linking", "/docs/methodology"],
  ])("%s finds %s first", (query, href) => {
    const hits = searchDocs(index, query);
    expect(hits[0]?.entry.h.startsWith(href), `${query}: ${hits.map((h) => h.entry.h).join(", ")}`).toBe(true);
  });

  test("a parameter name finds its endpoint page among the top hits", () => {
    const top = searchDocs(index, "includeGated", 3).map((h) => h.entry.h);
    expect(top.some((h) => h.startsWith("/docs/api/volatility-history"))).toBe(true);
  });

  test("every query word must match", () => {
    expect(searchDocs(index, "retry-after zzzzqqq")).toEqual([]);
    expect(searchDocs(index, "   ")).toEqual([]);
  });

  test("caps the number of hits", () => {
    expect(searchDocs(index, "the", 5)).toHaveLength(5);
  });

  test("excerpt centres on the first matching word", () => {
    const entry = { p: "P", s: "S", h: "/docs", x: `${"word ".repeat(40)}needle and more text` };
    const e = excerpt(entry, "needle");
    expect(e.startsWith("…")).toBe(true);
    expect(e).toContain("needle");
  });
});
