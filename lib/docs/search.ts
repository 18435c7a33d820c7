import type { SearchEntry } from "./content";

/**
 * Client-side search over the build-time index: every query word must occur in the entry;
 * page titles weigh most, then section headings, then body text.
 */

export interface SearchHit {
  entry: SearchEntry;
  score: number;
}

function words(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[^a-z0-9_./-]+/)
    .map((w) => w.replaceAll(/^[./-]+|[./-]+$/g, ""))
    .filter((w) => w.length > 0);
}

/** 1 for the first occurrence in the text, up to 2 for repeated ones: a section about a term mentions it often. */
function occurrences(text: string, term: string): number {
  let count = 0;
  for (let i = text.indexOf(term); i >= 0 && count < 4; i = text.indexOf(term, i + term.length)) count++;
  return 1 + (count - 1) / 3;
}

export function searchDocs(index: readonly SearchEntry[], query: string, max = 8): SearchHit[] {
  const terms = words(query);
  if (terms.length === 0) return [];
  const phrase = query.trim().toLowerCase();
  const hits: SearchHit[] = [];
  for (const entry of index) {
    const title = entry.p.toLowerCase();
    const heading = entry.s.toLowerCase();
    const text = entry.x.toLowerCase();
    let score = 0;
    let all = true;
    for (const term of terms) {
      const inTitle = title.includes(term);
      const inHeading = heading.includes(term);
      const inText = text.includes(term);
      if (!inTitle && !inHeading && !inText) {
        all = false;
        break;
      }
      // Title words count for the page entry; on section entries the heading is what matters.
      score += (inTitle ? (entry.s === "" ? 10 : 2) : 0) + (inHeading ? 6 : 0) + (inText ? occurrences(text, term) : 0);
    }
    if (!all) continue;
    if (entry.s === "" && title === phrase) score += 50;
    else if (heading === phrase) score += 30;
    else if ((entry.s === "" ? title : heading).includes(phrase)) score += 10;
    hits.push({ entry, score });
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, max);
}

/** A short excerpt of the entry text around the first query word. */
export function excerpt(entry: SearchEntry, query: string, width = 140): string {
  const text = entry.x;
  const lower = text.toLowerCase();
  const first = words(query)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  const start = first === undefined ? 0 : Math.max(0, first - 40);
  const slice = text.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${slice}${start + width < text.length ? "…" : ""}`;
}
