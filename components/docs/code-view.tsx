"use client";

import { highlight, type TokenType } from "@/lib/docs/highlight";
import { CopyButton } from "./copy-button";

// A client component on purpose: the page's React Server Components payload then carries each
// block's code once, as a string prop, instead of one element per token (which doubled every
// docs page's weight). The HTML is rendered on the server all the same.

/** Pygments' short token class names, coloured under `.code-hl` in app/globals.css. */
const TOKEN_CLASS: Readonly<Record<TokenType, string | undefined>> = {
  plain: undefined,
  comment: "c",
  string: "s",
  number: "m",
  keyword: "k",
  literal: "kc",
  property: "nt",
  function: "nf",
  variable: "nv",
  operator: "o",
  punctuation: "p",
};

/** JSON's unmatched text is whitespace only, so its punctuation colour can be the block's own and needs no span. */
const BASE_TYPE: Readonly<Record<string, TokenType>> = {
  json: "punctuation",
  jsonl: "punctuation",
};

/**
 * A code block: label, copy button and the code, highlighted. A `plain` block (a hidden tab pane)
 * is only its text, and becomes a whole block when shown.
 */
export function CodeView({
  text,
  lang,
  label,
  plain = false,
}: {
  text: string;
  lang: string;
  label: string;
  plain?: boolean;
}) {
  if (plain) {
    return (
      <pre className="code-hl">
        <code className={`language-${lang}`}>{text}</code>
      </pre>
    );
  }
  const base = BASE_TYPE[lang.toLowerCase()] ?? "plain";
  return (
    <div className="code-block not-prose" data-code-block="">
      <div className="code-head">
        <span>{label}</span>
        <CopyButton text={text} />
      </div>
      <pre tabIndex={0} className="code-hl">
        <code className={TOKEN_CLASS[base] ? `language-${lang} ${TOKEN_CLASS[base]}` : `language-${lang}`}>
          {highlight(text, lang).map((token, i) => {
            const className = token.type === base ? undefined : TOKEN_CLASS[token.type];
            return className ? (
              <span key={i} className={className}>
                {token.text}
              </span>
            ) : (
              token.text
            );
          })}
        </code>
      </pre>
    </div>
  );
}
