/**
 * A small syntax highlighter for the languages the docs use (json, bash, ts/js, python, csv/text).
 * Each language is an ordered list of sticky regular expressions tried at the current position;
 * the first that matches makes a token, and anything unmatched is plain text. Output is tokens, so
 * rendering stays in React (no HTML strings).
 */

export type TokenType =
  | "plain"
  | "comment"
  | "string"
  | "number"
  | "keyword"
  | "literal"
  | "property"
  | "function"
  | "variable"
  | "operator"
  | "punctuation";

export interface Token {
  type: TokenType;
  text: string;
}

type Rule = readonly [TokenType | ((match: string, next: string) => TokenType), RegExp];

const TS_KEYWORDS = new Set(
  "as async await break case catch class const continue default delete do else export extends finally for from function if import in instanceof interface let new of return satisfies static switch throw try type typeof var void while yield".split(
    " ",
  ),
);
const TS_LITERALS = new Set(["true", "false", "null", "undefined", "this"]);
const PY_KEYWORDS = new Set(
  "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
const PY_LITERALS = new Set(["True", "False", "None"]);
const SH_KEYWORDS = new Set(
  "if then else elif fi for in do done while until case esac function return export local set".split(" "),
);

function identifier(keywords: ReadonlySet<string>, literals: ReadonlySet<string>) {
  return (word: string, next: string): TokenType => {
    if (literals.has(word)) return "literal";
    if (keywords.has(word)) return "keyword";
    if (next === "(") return "function";
    return "plain";
  };
}

const NUMBER = /-?(?:0x[\da-fA-F]+|\d+(?:_\d+)*(?:\.\d+)?(?:[eE][+-]?\d+)?)n?\b/y;

const JSON_RULES: readonly Rule[] = [
  ["property", /"(?:[^"\\\n]|\\.)*"(?=\s*:)/y],
  ["string", /"(?:[^"\\\n]|\\.)*"/y],
  ["number", NUMBER],
  ["literal", /\b(?:true|false|null)\b/y],
  ["punctuation", /[{}[\],:]/y],
];

const TS_RULES: readonly Rule[] = [
  ["comment", /\/\/[^\n]*/y],
  ["comment", /\/\*[\s\S]*?(?:\*\/|$)/y],
  ["string", /`(?:[^`\\]|\\[\s\S])*`/y],
  ["string", /"(?:[^"\\\n]|\\.)*"/y],
  ["string", /'(?:[^'\\\n]|\\.)*'/y],
  ["number", NUMBER],
  [identifier(TS_KEYWORDS, TS_LITERALS), /[A-Za-z_$][\w$]*/y],
  ["operator", /=>|[=!]==?|&&|\|\||\?\?|[-+*/%<>=!]=?|\?/y],
  ["punctuation", /[{}[\]();,.:]/y],
];

const PY_RULES: readonly Rule[] = [
  ["comment", /#[^\n]*/y],
  ["string", /[rbfRBF]{0,2}"""[\s\S]*?(?:"""|$)/y],
  ["string", /[rbfRBF]{0,2}'''[\s\S]*?(?:'''|$)/y],
  ["string", /[rbfRBF]{0,2}"(?:[^"\\\n]|\\.)*"/y],
  ["string", /[rbfRBF]{0,2}'(?:[^'\\\n]|\\.)*'/y],
  ["number", NUMBER],
  ["function", /@[A-Za-z_][\w.]*/y],
  [identifier(PY_KEYWORDS, PY_LITERALS), /[A-Za-z_][\w]*/y],
  ["operator", /[-+*/%=<>!]=?|\*\*/y],
  ["punctuation", /[{}[\]();,.:]/y],
];

const SH_RULES: readonly Rule[] = [
  ["comment", /(?<![^\s])#[^\n]*/y],
  ["string", /'[^']*'/y],
  ["string", /"(?:[^"\\]|\\[\s\S])*"/y],
  ["variable", /\$(?:\{[^}]*\}|[A-Za-z_]\w*|[0-9?#@*$])/y],
  ["keyword", /(?<=^|\s)--?[A-Za-z][\w-]*/y],
  // The first word of a command: at line start, or after a pipe, ;, && or $( .
  [
    (word) => (SH_KEYWORDS.has(word) ? "keyword" : "function"),
    /(?<=^[ \t]*|[|;&(][ \t]*|\$\([ \t]*)[A-Za-z_][\w.-]*(?![\w=])/my,
  ],
  ["operator", /\|\||&&|[|><]=?|\\$/my],
  ["number", /\b\d+\b/y],
];

const CSV_RULES: readonly Rule[] = [
  ["string", /"(?:[^"]|"")*"/y],
  ["number", /-?\d+(?:\.\d+)?(?=,|$)/my],
  ["punctuation", /,/y],
];

const LANGUAGES: Readonly<Record<string, readonly Rule[]>> = {
  json: JSON_RULES,
  jsonl: JSON_RULES,
  ts: TS_RULES,
  tsx: TS_RULES,
  typescript: TS_RULES,
  js: TS_RULES,
  javascript: TS_RULES,
  python: PY_RULES,
  py: PY_RULES,
  bash: SH_RULES,
  sh: SH_RULES,
  shell: SH_RULES,
  csv: CSV_RULES,
};

export function isHighlighted(lang: string): boolean {
  return Object.hasOwn(LANGUAGES, lang.toLowerCase());
}

function push(tokens: Token[], type: TokenType, text: string): void {
  const last = tokens[tokens.length - 1];
  if (last && last.type === type) last.text += text;
  else tokens.push({ type, text });
}

/** Tokens whose texts concatenate to exactly `code`. */
export function highlight(code: string, lang: string): Token[] {
  const rules = LANGUAGES[lang.toLowerCase()];
  if (!rules) return code === "" ? [] : [{ type: "plain", text: code }];
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < code.length) {
    let matched = false;
    for (const [kind, pattern] of rules) {
      pattern.lastIndex = pos;
      const m = pattern.exec(code);
      if (!m || m[0].length === 0) continue;
      const text = m[0];
      const type = typeof kind === "function" ? kind(text, code.charAt(pos + text.length)) : kind;
      push(tokens, type, text);
      pos += text.length;
      matched = true;
      break;
    }
    if (!matched) {
      push(tokens, "plain", code.charAt(pos));
      pos += 1;
    }
  }
  return tokens;
}
