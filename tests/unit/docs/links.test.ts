import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { CONTENT_DIR, docAnchors, docSource } from "@/lib/docs/content";
import { headingsOf } from "@/lib/docs/outline";
import { DOC_PAGES, docHref, findDocPage } from "@/lib/docs/pages";
import { pythonPackage, typescriptPackage } from "@/scripts/lib/public-files.mjs";
import { idsIn, renderDocPage } from "./render-mdx";

/** Site pages outside /docs that the docs may link to, and the route file that serves each. */
const SITE_ROUTES: Readonly<Record<string, string>> = {
  "/terms": "app/terms/page.tsx",
  "/license": "app/license/page.tsx",
  "/portal": "app/portal/(account)/page.tsx",
  "/openapi.json": "app/openapi.json/route.ts",
  "/changelog": "app/changelog/page.tsx",
  "/status": "app/status/page.tsx",
  // files of public/ the build writes (scripts/lib/public-files.mjs), by the source each is built from:
  // the names follow the packages' versions, so a link to a stale version fails here
  [`/clients/${typescriptPackage().tarball}`]: "clients/typescript/package.json",
  [`/clients/${pythonPackage().wheel}`]: "clients/python/pyproject.toml",
  "/tools/recompute_bundles.py": "scripts/outside/recompute_bundles.py",
};

interface Link {
  from: string;
  href: string;
}

/** Internal links in an MDX source: markdown links (also inside Table cell strings) and href="..." props. */
function internalLinks(file: string, source: string): Link[] {
  const found = [
    ...[...source.matchAll(/\]\(((?:\/|#)[^)\s]*)\)/g)].map((m) => m[1] ?? ""),
    ...[...source.matchAll(/\bhref="((?:\/|#)[^"]*)"/g)].map((m) => m[1] ?? ""),
  ];
  return found.map((href) => ({ from: file, href }));
}

const links = DOC_PAGES.flatMap((page) => internalLinks(page.file, docSource(page)).map((l) => ({ ...l, page })));

describe("internal links in the MDX content", () => {
  test("the content has links to check", () => {
    expect(links.length).toBeGreaterThan(100);
  });

  test.each(links.map((l) => [l.from, l.href, l] as const))("%s -> %s", async (_from, href, link) => {
    const [rawPath = "", anchor = ""] = href.split("#");
    const target = rawPath === "" ? link.page : findDocPage(rawPath);
    if (rawPath !== "" && !rawPath.startsWith("/docs")) {
      expect(Object.keys(SITE_ROUTES), `unknown site route ${rawPath}`).toContain(rawPath);
      const file = SITE_ROUTES[rawPath] ?? "";
      expect(existsSync(path.join(process.cwd(), file)), `${file} is missing`).toBe(true);
      expect(anchor).toBe("");
      return;
    }
    expect(target, `no docs page at ${rawPath}`).toBeDefined();
    if (!target || anchor === "") return;
    expect(docAnchors(target).has(anchor), `${docHref(target)} declares no anchor #${anchor}`).toBe(true);
    expect(idsIn(await renderDocPage(target)).has(anchor), `${docHref(target)} renders no id="${anchor}"`).toBe(true);
  });
});

describe("headings", () => {
  test.each(DOC_PAGES.map((p) => [p.file, p] as const))("%s: TOC ids are unique and rendered", async (_file, page) => {
    const source = readFileSync(path.join(CONTENT_DIR, page.file), "utf8");
    expect(source.length).toBeGreaterThan(0);
    const headings = headingsOf(source);
    const ids = headings.map((h) => h.id);
    expect(new Set(ids).size, `duplicate heading ids in ${page.file}: ${ids.join(", ")}`).toBe(ids.length);
    const rendered = idsIn(await renderDocPage(page));
    for (const h of headings)
      expect(rendered.has(h.id), `${page.file}: "${h.text}" renders without id="${h.id}"`).toBe(true);
  });
});
