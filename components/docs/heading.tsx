import type { ReactNode } from "react";
import { textOf } from "@/lib/docs/react-text";
import { slugify } from "@/lib/docs/slug";

/** Styled in app/globals.css. */
const STYLE = { 2: "doc-h2", 3: "doc-h3" } as const;

/** h2/h3 with an id derived from the heading text (or given explicitly) and a hover anchor link. */
export function Heading({ level, id, children }: { level: 2 | 3; id?: string; children?: ReactNode }) {
  const anchor = id ?? slugify(textOf(children));
  const Tag = level === 2 ? "h2" : "h3";
  return (
    <Tag id={anchor} className={STYLE[level]}>
      {children}
      <a href={`#${anchor}`} aria-label="Link to this section" className="doc-anchor">
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
