import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { CONTENT_DIR } from "@/lib/docs/content";
import { DOC_GROUPS, DOC_PAGES, docGroups, docHref, findDocPage, neighbours, pageForSegments } from "@/lib/docs/pages";

function mdxFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? mdxFiles(path.join(dir, e.name), base)
      : e.name.endsWith(".mdx")
        ? [path.relative(base, path.join(dir, e.name))]
        : [],
  );
}

describe("page registry", () => {
  test("every registered page has its MDX file, and every MDX file is registered", () => {
    for (const p of DOC_PAGES) expect(existsSync(path.join(CONTENT_DIR, p.file)), p.file).toBe(true);
    expect(mdxFiles(CONTENT_DIR).sort()).toEqual(DOC_PAGES.map((p) => p.file).sort());
  });

  test("every page is statically imported by the route's module map", () => {
    const map = readFileSync(path.join(process.cwd(), "lib/docs/mdx-modules.ts"), "utf8");
    for (const p of DOC_PAGES) {
      expect(map).toContain(`"${p.file}": () => import("@/content/docs/${p.file}")`);
    }
  });

  test("slugs and hrefs are unique, and /docs is the overview", () => {
    const hrefs = DOC_PAGES.map(docHref);
    expect(new Set(hrefs).size).toBe(hrefs.length);
    expect(findDocPage("/docs")?.title).toBe("Overview");
    expect(findDocPage("/docs/limits/")?.title).toBe("Rate limits");
    expect(findDocPage("/docs/errors#rate_limited")?.slug).toBe("errors");
    expect(findDocPage("/docs/nope")).toBeUndefined();
    expect(pageForSegments(undefined)?.slug).toBe("");
    expect(pageForSegments(["api", "index-history"])?.slug).toBe("api/index-history");
  });

  test("the spec's pages exist", () => {
    for (const href of [
      "/docs/quickstart",
      "/docs/authentication",
      "/docs/limits",
      "/docs/errors",
      "/docs/conventions",
      "/docs/versioning",
      "/docs/api/service-index",
      "/docs/api/indices",
      "/docs/api/index-latest",
      "/docs/api/index-history",
      "/docs/api/reconstitutions",
      "/docs/api/volatility",
      "/docs/api/volatility-latest",
      "/docs/api/volatility-history",
      "/docs/api/downloads",
      "/docs/downloads",
      "/docs/ingestion",
      "/docs/methodology",
      "/docs/mcp",
      "/docs/attribution",
    ]) {
      expect(findDocPage(href), href).toBeDefined();
    }
  });

  test("groups cover every page in reading order; neighbours chain through all pages", () => {
    expect(docGroups().map((g) => g.group)).toEqual([...DOC_GROUPS]);
    expect(docGroups().flatMap((g) => g.pages)).toEqual([...DOC_PAGES]);
    const first = DOC_PAGES[0]!;
    expect(neighbours(first).prev).toBeNull();
    let page = first;
    let seen = 1;
    while (neighbours(page).next) {
      page = neighbours(page).next!;
      seen++;
    }
    expect(seen).toBe(DOC_PAGES.length);
  });
});
