import type { EndpointName } from "@/lib/api/endpoint-table";
import { ERROR_STATUS_HEAD, errorSections, errorStatusRows } from "./error-reference";
import { PARAMS_HEAD, paramRows } from "./params-table";
import { markdownHeadingText, slugify } from "./slug";

/**
 * Reads an MDX source the way the rendered page will look: its h2/h3 headings (with the ids the
 * heading components give them), every other element id, and plain text per section for search.
 * Pure functions over the source text, so the build, the client index and the tests share them.
 */

export interface Heading {
  depth: 2 | 3;
  text: string;
  id: string;
}

export interface Section {
  /** null for the text before the first heading */
  heading: Heading | null;
  text: string;
}

/** Components that expand to generated sections when the page renders. */
const GENERATED_BLOCKS: Readonly<Record<string, () => Section[]>> = {
  ErrorReference: () =>
    errorSections().map((e) => ({
      heading: { depth: 2, text: e.code, id: e.anchor },
      text: `${e.title}. ${e.statusLabel}. ${e.when} ${e.whatToDo} ${e.example.error.message}`,
    })),
};

/** Components that expand to generated tables: their rows are the section's text, as a written table's are. */
const GENERATED_TABLE = /^<(ParamsTable|ErrorCodes)(?:\s+endpoint="(\w+)")?\s*\/>\s*$/;

function tableText(component: string, endpoint: string | undefined): string {
  const [head, rows] =
    component === "ErrorCodes"
      ? [ERROR_STATUS_HEAD, errorStatusRows()]
      : [PARAMS_HEAD, paramRows(endpoint as EndpointName)];
  return [head, ...rows].map((row) => row.join(" ")).join("\n");
}

const FENCE = /^\s*(```|~~~)/;
const MD_HEADING = /^(#{2,3})\s+(.+?)\s*#*\s*$/;
/** `<H2 id="x">Text</H2>`: a heading with an explicit id, on one line. */
const JSX_HEADING = /^<H([23])\s+id="([^"]+)"\s*>(.*)<\/H\1>\s*$/;
const GENERATED_LINE = /^<([A-Z]\w*)\s*\/>\s*$/;
const ID_ATTRIBUTE = /\bid="([^"]+)"/g;

function headingOf(line: string): Heading | null {
  const jsx = JSX_HEADING.exec(line);
  if (jsx) {
    return { depth: jsx[1] === "2" ? 2 : 3, id: jsx[2] ?? "", text: markdownHeadingText(jsx[3] ?? "") };
  }
  const md = MD_HEADING.exec(line);
  if (md) {
    const text = markdownHeadingText(md[2] ?? "");
    return { depth: md[1] === "##" ? 2 : 3, text, id: slugify(text) };
  }
  return null;
}

/** Splits a page into sections at its h2/h3 headings; generated blocks contribute their own sections. */
export function sectionsOf(source: string): Section[] {
  const sections: Section[] = [{ heading: null, text: "" }];
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const last = sections[sections.length - 1];
    if (last) last.text = plainText(lines.join("\n"));
    lines = [];
  };
  for (const line of source.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (!inFence) {
      const heading = headingOf(line);
      if (heading) {
        flush();
        sections.push({ heading, text: "" });
        continue;
      }
      const table = GENERATED_TABLE.exec(line);
      if (table) {
        lines.push(tableText(table[1] ?? "", table[2]));
        continue;
      }
      const generated = GENERATED_LINE.exec(line);
      const expand = generated ? GENERATED_BLOCKS[generated[1] ?? ""] : undefined;
      if (expand) {
        flush();
        sections.push(...expand(), { heading: null, text: "" });
        continue;
      }
    }
    lines.push(line);
  }
  flush();
  return sections.filter((s) => s.heading !== null || s.text !== "");
}

/** The page's h2/h3 headings in order: the table of contents. */
export function headingsOf(source: string): Heading[] {
  return sectionsOf(source).flatMap((s) => (s.heading ? [s.heading] : []));
}

/** Every element id the rendered page carries: headings, generated sections and explicit `id="..."`. */
export function anchorsOf(source: string): Set<string> {
  const ids = new Set(headingsOf(source).map((h) => h.id));
  let inFence = false;
  for (const line of source.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence) for (const m of line.matchAll(ID_ATTRIBUTE)) if (m[1]) ids.add(m[1]);
  }
  return ids;
}

/** Readable text of MDX: imports, JSX syntax and markdown punctuation removed, words kept. */
export function plainText(mdx: string): string {
  return (
    mdx
      .split(/\r?\n/)
      // imports, and bare boolean props on their own line (`  code`) of a multi-line JSX tag
      .filter((line) => !/^\s*(import|export)\s/.test(line) && !/^\s+[a-z]\w*\s*$/.test(line))
      .join("\n")
      .replaceAll(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replaceAll(/<\/?[A-Za-z][\w.]*/g, " ")
      .replaceAll(/\/?>/g, " ")
      .replaceAll(/\b[a-zA-Z]+=(?=[{"])/g, " ")
      .replaceAll(/\\([\\`*_{}[\]()#+\-.!<>|])/g, "$1")
      .replaceAll(/"\s*,\s*"/g, " ")
      .replaceAll(/[`*]/g, "")
      .replaceAll(/[{}[\]"|#]/g, " ")
      .replaceAll(/\s+,/g, ",")
      .replaceAll(/\s+/g, " ")
      .trim()
  );
}
