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
  h4: ({ children }: ComponentPropsWithoutRef<"h4">) => (
    <h4 className="mt-6 mb-2 font-semibold text-slate-900">{children}</h4>
  ),
  p: ({ children }: ComponentPropsWithoutRef<"p">) => <p className="my-4 leading-7 text-slate-700">{children}</p>,
  a: ({ href, children }: ComponentPropsWithoutRef<"a">) => <DocLink href={href}>{children}</DocLink>,
  ul: ({ children }: ComponentPropsWithoutRef<"ul">) => (
    <ul className="my-4 list-disc space-y-1.5 pl-6 leading-7 text-slate-700 marker:text-slate-400">{children}</ul>
  ),
  ol: ({ children }: ComponentPropsWithoutRef<"ol">) => (
    <ol className="my-4 list-decimal space-y-1.5 pl-6 leading-7 text-slate-700 marker:text-slate-500">{children}</ol>
  ),
  li: ({ children }: ComponentPropsWithoutRef<"li">) => <li className="pl-1 [&>p]:my-1">{children}</li>,
  blockquote: ({ children }: ComponentPropsWithoutRef<"blockquote">) => (
    <blockquote className="my-5 border-l-4 border-slate-300 pl-4 text-slate-600 italic">{children}</blockquote>
  ),
  hr: () => <hr className="my-10 border-slate-200" />,
  strong: ({ children }: ComponentPropsWithoutRef<"strong">) => (
    <strong className="font-semibold text-slate-900">{children}</strong>
  ),
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
