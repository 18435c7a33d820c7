import { describe, expect, test } from "vitest";
import { ERROR_CODES, docsUrl, errorAnchor } from "@/lib/api/errors";
import { docAnchors } from "@/lib/docs/content";
import { errorSections } from "@/lib/docs/error-reference";
import { findDocPage } from "@/lib/docs/pages";
import { idsIn, renderDocPage } from "./render-mdx";

const BASE = "https://api.example.test";

/** Every `error.docsUrl` the API can emit, split into the docs page path and its fragment. */
const targets = ERROR_CODES.map((code) => {
  const url = new URL(docsUrl(code, BASE));
  return { code, url: url.href, pathname: url.pathname, anchor: url.hash.replace(/^#/, "") };
});

describe("every error.docsUrl resolves to a docs page with that anchor", () => {
  test.each(targets)("$code -> $url", async ({ code, pathname, anchor }) => {
    expect(docsUrl(code, BASE).startsWith(`${BASE}/docs/`)).toBe(true);
    const page = findDocPage(pathname);
    expect(page, `no docs page serves ${pathname}`).toBeDefined();
    if (!page) return;
    const html = await renderDocPage(page);
    // The fallback `error` links to the limits page without a fragment; that page has an id="error" section.
    const id = anchor === "" ? code : anchor;
    expect(docAnchors(page).has(id), `${page.file} declares no anchor "${id}"`).toBe(true);
    expect(idsIn(html).has(id), `rendered ${pathname} has no element with id="${id}"`).toBe(true);
  });

  test("named codes point at /docs/errors#<code>; the fallback points at /docs/limits", () => {
    for (const t of targets) {
      if (t.code === "error") expect(t.url).toBe(`${BASE}/docs/limits`);
      else expect(t.url).toBe(`${BASE}/docs/errors#${t.code}`);
    }
  });
});

describe("the errors page is generated from the error table", () => {
  test("one section per code, in table order, with id equal to the code", async () => {
    const sections = errorSections();
    expect(sections.map((s) => s.code)).toEqual(ERROR_CODES);
    for (const s of sections) expect(s.anchor).toBe(errorAnchor(s.code));
    const page = findDocPage("/docs/errors");
    expect(page).toBeDefined();
    const html = await renderDocPage(page!);
    for (const code of ERROR_CODES) {
      expect(html).toMatch(new RegExp(`<h2 id="${code}"[^>]*>`));
      expect(html).toContain(`data-error-code="${code}"`);
    }
  });

  test("each section states status, when, what to do and an example body with the code's docsUrl", () => {
    for (const s of errorSections()) {
      expect(s.when.length).toBeGreaterThan(0);
      expect(s.whatToDo.length).toBeGreaterThan(0);
      expect(s.statusLabel).toMatch(s.status === null ? /any status/ : new RegExp(`^${s.status}\\b`));
      expect(s.example.error.code).toBe(s.code);
      expect(s.example.error.docsUrl.endsWith(s.docsPath)).toBe(true);
      expect(Object.keys(s.example)).toEqual(["error"]);
      expect(Object.keys(s.example.error)).toEqual(["code", "message", "docsUrl", "requestId"]);
    }
  });
});
