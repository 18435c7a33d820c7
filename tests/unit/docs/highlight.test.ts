import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { CONTENT_DIR } from "@/lib/docs/content";
import { highlight, type Token } from "@/lib/docs/highlight";

const kinds = (tokens: Token[]) => tokens.filter((t) => t.type !== "plain").map((t) => [t.type, t.text]);

function mdxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? mdxFiles(path.join(dir, e.name)) : e.name.endsWith(".mdx") ? [path.join(dir, e.name)] : [],
  );
}

/** Every fenced block in the docs, with its language. */
const blocks = mdxFiles(CONTENT_DIR).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({
    file: path.relative(CONTENT_DIR, file),
    lang: m[1] || "text",
    code: m[2] ?? "",
  })),
);

describe("highlight", () => {
  test("the docs have code blocks in every highlighted language", () => {
    const langs = new Set(blocks.map((b) => b.lang));
    for (const lang of ["bash", "json", "ts", "python", "csv", "jsonl"]) expect(langs).toContain(lang);
  });

  test.each(blocks.map((b, i) => [`${b.file} #${i} (${b.lang})`, b] as const))(
    "%s: tokens reproduce the code exactly",
    (_, b) => {
      expect(
        highlight(b.code, b.lang)
          .map((t) => t.text)
          .join(""),
      ).toBe(b.code);
    },
  );

  test("json: properties, strings, numbers, literals", () => {
    expect(kinds(highlight('{"a": "x", "b": 1.5, "c": null}', "json"))).toEqual([
      ["punctuation", "{"],
      ["property", '"a"'],
      ["punctuation", ":"],
      ["string", '"x"'],
      ["punctuation", ","],
      ["property", '"b"'],
      ["punctuation", ":"],
      ["number", "1.5"],
      ["punctuation", ","],
      ["property", '"c"'],
      ["punctuation", ":"],
      ["literal", "null"],
      ["punctuation", "}"],
    ]);
  });

  test("bash: command, flags, strings, variables, comments", () => {
    expect(kinds(highlight('curl -sS "$BASE_URL/v1" -H "X: y" | jq .data # note\necho $API_KEY', "bash"))).toEqual([
      ["function", "curl"],
      ["keyword", "-sS"],
      ["string", '"$BASE_URL/v1"'],
      ["keyword", "-H"],
      ["string", '"X: y"'],
      ["operator", "|"],
      ["function", "jq"],
      ["comment", "# note"],
      ["function", "echo"],
      ["variable", "$API_KEY"],
    ]);
  });

  test("ts: keywords, calls, template strings, comments", () => {
    expect(kinds(highlight("const r = await fetch(`${u}/v1`); // go", "ts"))).toEqual([
      ["keyword", "const"],
      ["operator", "="],
      ["keyword", "await"],
      ["function", "fetch"],
      ["punctuation", "("],
      ["string", "`${u}/v1`"],
      ["punctuation", ");"],
      ["comment", "// go"],
    ]);
  });

  test("python: def, strings, literals, comments", () => {
    expect(kinds(highlight('def f(x=None):\n    return f"{x}"  # done', "python"))).toEqual([
      ["keyword", "def"],
      ["function", "f"],
      ["punctuation", "("],
      ["operator", "="],
      ["literal", "None"],
      ["punctuation", "):"],
      ["keyword", "return"],
      ["string", 'f"{x}"'],
      ["comment", "# done"],
    ]);
  });

  test("unknown languages are one plain token", () => {
    expect(highlight("GET /v1 HTTP/1.1", "http")).toEqual([{ type: "plain", text: "GET /v1 HTTP/1.1" }]);
  });
});
