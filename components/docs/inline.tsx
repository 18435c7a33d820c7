import Link from "next/link";
import type { ReactNode } from "react";
import { withBaseUrl } from "@/lib/docs/base-url";

const INLINE = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*/g;

export const INLINE_CODE_CLASS =
  "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.875em] text-slate-800 [overflow-wrap:anywhere]";

/** A link that uses client navigation inside the site and opens other hosts normally. */
export function DocLink({ href = "", children }: { href?: string; children?: ReactNode }) {
  const className = "text-brand underline decoration-brand/30 underline-offset-2 hover:decoration-brand";
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

/** Renders `code`, [text](href) and **bold** inside table cells and other string props. */
export function Inline({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index;
    if (at > last) parts.push(text.slice(last, at));
    if (m[1] !== undefined) {
      parts.push(
        <code key={at} className={INLINE_CODE_CLASS}>
          {withBaseUrl(m[1])}
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
        <strong key={at} className="font-semibold text-slate-900">
          <Inline text={m[4]} />
        </strong>,
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
