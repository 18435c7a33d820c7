/**
 * Anchor ids for headings. The TOC (built from MDX sources) and the rendered h2/h3 (built from
 * React children) both call `slugify` on the heading's plain text, so they always agree.
 */

/** "Retry-After and backoff" -> "retry-after-and-backoff"; underscores stay (error codes keep their names). */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replaceAll(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replaceAll(/[^a-z0-9_]+/g, "-")
    .replaceAll(/^-+|-+$/g, "");
}

/** Plain text of a markdown heading line's content: links, inline code, emphasis and escapes removed. */
export function markdownHeadingText(markdown: string): string {
  return markdown
    .replaceAll(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replaceAll(/`([^`]*)`/g, "$1")
    .replaceAll(/\\([\\`*_{}[\]()#+\-.!<>|])/g, "$1")
    .replaceAll(/\*\*([^*]+)\*\*/g, "$1")
    .replaceAll(/\*([^*]+)\*/g, "$1")
    .replaceAll(/\s+/g, " ")
    .trim();
}
