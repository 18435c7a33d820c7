import type { ReactNode } from "react";
import { textOf } from "@/lib/docs/react-text";
import { slugify } from "@/lib/docs/slug";

const STYLE = {
  2: "mt-12 mb-4 scroll-mt-20 border-b border-slate-200 pb-2 text-2xl font-semibold tracking-tight text-slate-900",
  3: "mt-8 mb-3 scroll-mt-20 text-lg font-semibold text-slate-900",
} as const;

/** h2/h3 with an id derived from the heading text (or given explicitly) and a hover anchor link. */
export function Heading({ level, id, children }: { level: 2 | 3; id?: string; children?: ReactNode }) {
  const anchor = id ?? slugify(textOf(children));
  const Tag = level === 2 ? "h2" : "h3";
  return (
    <Tag id={anchor} className={`group ${STYLE[level]}`}>
      {children}
      <a
        href={`#${anchor}`}
        aria-label="Link to this section"
        className="ml-2 text-slate-300! no-underline opacity-0 group-hover:opacity-100 focus:opacity-100 hover:text-slate-500!"
      >
        #
      </a>
    </Tag>
  );
}

export function H2({ id, children }: { id?: string; children?: ReactNode }) {
  return (
    <Heading level={2} id={id}>
      {children}
    </Heading>
  );
}

export function H3({ id, children }: { id?: string; children?: ReactNode }) {
  return (
    <Heading level={3} id={id}>
      {children}
    </Heading>
  );
}
