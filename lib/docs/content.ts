import { readFileSync } from "node:fs";
import path from "node:path";
import { anchorsOf, headingsOf, sectionsOf, type Heading } from "./outline";
import { DOC_PAGES, docHref, type DocPage } from "./pages";

/**
 * Access to the MDX sources (read from disk, never from the database). Pages render per request
 * so their examples show PUBLIC_BASE_URL; the search index is built once per process.
 */

export const CONTENT_DIR = path.join(process.cwd(), "content", "docs");

export function docSource(page: DocPage): string {
  return readFileSync(path.join(CONTENT_DIR, page.file), "utf8");
}

export function docHeadings(page: DocPage): Heading[] {
  return headingsOf(docSource(page));
}

export function docAnchors(page: DocPage): Set<string> {
  return anchorsOf(docSource(page));
}

/** One search entry: a page (no anchor) or one of its sections. Short keys keep the index small. */
export interface SearchEntry {
  /** page title */
  p: string;
  /** section heading; "" for the page itself */
  s: string;
  /** href, with the section anchor */
  h: string;
  /** plain text, trimmed */
  x: string;
}

const MAX_TEXT = 700;

function trimText(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const cut = text.lastIndexOf(" ", MAX_TEXT);
  return text.slice(0, cut > 0 ? cut : MAX_TEXT);
}

let siteIndex: SearchEntry[] | undefined;

/** The whole site's search index, built from the MDX sources (and the generated error sections). */
export function buildSearchIndex(pages: readonly DocPage[] = DOC_PAGES): SearchEntry[] {
  // docs pages render per request (for PUBLIC_BASE_URL); the sources do not change while serving
  if (pages === DOC_PAGES) return (siteIndex ??= searchIndexOf(pages));
  return searchIndexOf(pages);
}

function searchIndexOf(pages: readonly DocPage[]): SearchEntry[] {
  return pages.flatMap((page) => {
    const href = docHref(page);
    const sections = sectionsOf(docSource(page));
    const intro = sections.find((s) => s.heading === null)?.text ?? "";
    const entries: SearchEntry[] = [{ p: page.title, s: "", h: href, x: trimText(`${page.description} ${intro}`) }];
    for (const section of sections) {
      if (!section.heading) continue;
      entries.push({
        p: page.title,
        s: section.heading.text,
        h: `${href}#${section.heading.id}`,
        x: trimText(section.text),
      });
    }
    return entries;
  });
}
