import type { MDXComponents } from "mdx/types";
import { isValidElement, type ComponentPropsWithoutRef, type ReactNode } from "react";
import { BaseUrl } from "@/components/docs/base-url";
import { Callout } from "@/components/docs/callout";
import { CodeBlock } from "@/components/docs/code-block";
import { CodeTabs } from "@/components/docs/code-tabs";
import { Endpoint } from "@/components/docs/endpoint";
import { ErrorCodes, ErrorExample, ErrorReference } from "@/components/docs/error-reference";
import { ParamsTable } from "@/components/docs/params-table";
import { Example } from "@/components/docs/example";
import { H2, H3, Heading } from "@/components/docs/heading";
import { DocLink, INLINE_CODE_CLASS } from "@/components/docs/inline";
import { Table } from "@/components/docs/table";
import { withBaseUrl } from "@/lib/docs/base-url";
import { textOf } from "@/lib/docs/react-text";

/** A fenced block arrives as <pre><code className="language-x">text</code></pre>. */
function Pre({ children }: { children?: ReactNode }) {
  if (isValidElement<{ className?: string; children?: ReactNode }>(children)) {
    const lang = /language-([\w-]+)/.exec(children.props.className ?? "")?.[1] ?? "text";
    return <CodeBlock code={textOf(children.props.children)} lang={lang} />;
  }
  return <CodeBlock code={textOf(children)} />;
}

const components = {
  h2: ({ children }: ComponentPropsWithoutRef<"h2">) => <Heading level={2}>{children}</Heading>,
  h3: ({ children }: ComponentPropsWithoutRef<"h3">) => <Heading level={3}>{children}</Heading>,
  // Prose elements carry one class each, styled in app/globals.css (light markup on long pages).
  h4: ({ children }: ComponentPropsWithoutRef<"h4">) => <h4 className="doc-h4">{children}</h4>,
  p: ({ children }: ComponentPropsWithoutRef<"p">) => <p className="doc-p">{children}</p>,
  a: ({ href, children }: ComponentPropsWithoutRef<"a">) => <DocLink href={href}>{children}</DocLink>,
  ul: ({ children }: ComponentPropsWithoutRef<"ul">) => <ul className="doc-ul">{children}</ul>,
  ol: ({ children }: ComponentPropsWithoutRef<"ol">) => <ol className="doc-ol">{children}</ol>,
  li: ({ children }: ComponentPropsWithoutRef<"li">) => <li className="doc-li">{children}</li>,
  blockquote: ({ children }: ComponentPropsWithoutRef<"blockquote">) => (
    <blockquote className="doc-quote">{children}</blockquote>
  ),
  hr: () => <hr className="doc-hr" />,
  strong: ({ children }: ComponentPropsWithoutRef<"strong">) => <strong className="doc-strong">{children}</strong>,
  code: ({ children }: ComponentPropsWithoutRef<"code">) => (
    <code className={INLINE_CODE_CLASS}>{typeof children === "string" ? withBaseUrl(children) : children}</code>
  ),
  pre: Pre,
  BaseUrl,
  Callout,
  CodeBlock,
  CodeTabs,
  Endpoint,
  ErrorExample,
  ErrorCodes,
  ErrorReference,
  ParamsTable,
  Example,
  H2,
  H3,
  Table,
} satisfies MDXComponents;

export function useMDXComponents(): MDXComponents {
  return components;
}
