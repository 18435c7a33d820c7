import { withBaseUrl } from "@/lib/docs/base-url";
import { highlight, type TokenType } from "@/lib/docs/highlight";
import { CopyButton } from "./copy-button";

const TOKEN_CLASS: Readonly<Record<TokenType, string | undefined>> = {
  plain: undefined,
  comment: "text-slate-400 italic",
  string: "text-emerald-300",
  number: "text-amber-300",
  keyword: "text-sky-300",
  literal: "text-orange-300",
  property: "text-violet-300",
  function: "text-sky-200 font-semibold",
  variable: "text-rose-300",
  operator: "text-slate-300",
  punctuation: "text-slate-400",
};

const LANGUAGE_LABEL: Readonly<Record<string, string>> = {
  bash: "bash",
  sh: "shell",
  shell: "shell",
  json: "JSON",
  jsonl: "JSONL",
  ts: "TypeScript",
  tsx: "TypeScript",
  typescript: "TypeScript",
  js: "JavaScript",
  javascript: "JavaScript",
  python: "Python",
  py: "Python",
  csv: "CSV",
  http: "HTTP",
  text: "text",
};

/**
 * A highlighted code block with a copy button; `title` replaces the language label. The
 * placeholder address of docs sources becomes the configured PUBLIC_BASE_URL.
 */
export function CodeBlock({ code, lang = "text", title }: { code: string; lang?: string; title?: string }) {
  const text = withBaseUrl(code).replace(/\n$/, "");
  const label = title ?? LANGUAGE_LABEL[lang.toLowerCase()] ?? lang;
  return (
    <div className="not-prose my-5 overflow-hidden rounded-lg border border-slate-800 bg-slate-900" data-code-block="">
      <div className="flex items-center justify-between gap-2 border-b border-slate-800 px-3 py-1.5">
        <span className="truncate font-mono text-xs text-slate-400">{label}</span>
        <CopyButton text={text} />
      </div>
      <pre tabIndex={0} className="overflow-x-auto p-4 text-[13px] leading-relaxed text-slate-100">
        <code className={`language-${lang} font-mono`}>
          {highlight(text, lang).map((token, i) => {
            const className = TOKEN_CLASS[token.type];
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
