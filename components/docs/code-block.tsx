import { withBaseUrl } from "@/lib/docs/base-url";
import { CodeView } from "./code-view";

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

export function languageLabel(lang: string): string {
  return LANGUAGE_LABEL[lang.toLowerCase()] ?? lang;
}

/** The code as a page shows it: the docs' placeholder address becomes the configured PUBLIC_BASE_URL. */
export function shownCode(code: string): string {
  return withBaseUrl(code).replace(/\n$/, "");
}

/** A highlighted code block with a copy button; `title` replaces the language label. */
export function CodeBlock({ code, lang = "text", title }: { code: string; lang?: string; title?: string }) {
  return <CodeView text={shownCode(code)} lang={lang} label={title ?? languageLabel(lang)} />;
}
