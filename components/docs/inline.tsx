import Link from "next/link";
import type { ReactNode } from "react";

const INLINE = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*/g;

/** Inline code in the docs (styled in app/globals.css). */
export const INLINE_CODE_CLASS = "doc-code";

/** A link that uses client navigation inside the site and opens other hosts normally. */
export function DocLink({ href = "", children }: { href?: string; children?: ReactNode }) {
  const className = "doc-link";
  // a file the server serves (a client package, the verifier): a plain download, not a page
  if (/^\/(clients|tools)\/[^/]+$/.test(href)) {
    return (
      <a href={href} className={className} download>
        {children}
      </a>
    );
  }
  if (href.startsWith("/") && !href.startsWith("//")) {
    return (
      <Link href={href} className={className}>
        {children}
      </Link>
    );
  }
  if (href.startsWith("#")) {
    return (
      <a href={href} className={className}>
        {children}
      </a>
    );
  }
  return (
    <a href={href} className={className} rel="noreferrer">
      {children}
    </a>
  );
}

/**
 * Renders `code`, [text](href) and **bold** inside table cells and other string props. Usable on
 * either side: the caller replaces the example address (components/docs/table.tsx).
 */
export function Inline({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index;
    if (at > last) parts.push(text.slice(last, at));
    if (m[1] !== undefined) {
      parts.push(
        <code key={at} className={INLINE_CODE_CLASS}>
          {m[1]}
        </code>,
      );
    } else if (m[2] !== undefined && m[3] !== undefined) {
      parts.push(
        <DocLink key={at} href={m[3]}>
          <Inline text={m[2]} />
        </DocLink>,
      );
    } else if (m[4] !== undefined) {
      parts.push(
        <strong key={at} className="doc-strong">
          <Inline text={m[4]} />
        </strong>,
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
