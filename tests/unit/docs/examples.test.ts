import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { CONTENT_DIR } from "@/lib/docs/content";
import { withBaseUrl } from "@/lib/docs/base-url";
import { exampleFileText } from "@/lib/docs/example-files";
import { formatJson } from "@/lib/docs/format-json";

const EXAMPLES = path.join(CONTENT_DIR, "examples");
const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));
const load = (f: string): unknown => JSON.parse(readFileSync(path.join(EXAMPLES, f), "utf8"));

const MICROS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const MICROS_NO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
/** The spec's three fields that are UTC with microseconds but without the Z (path suffixes). */
const NO_Z_SUFFIXES = [".tick.computedAt", ".attribution.prevComputedAt", ".components[].observed_at"];

/** Visits every (path, key, value) of a JSON value; paths look like `data.tick.components[].observed_at`. */
function walk(value: unknown, at: string, visit: (path: string, key: string, v: unknown) => void): void {
  if (Array.isArray(value)) value.forEach((v) => walk(v, `${at}[]`, visit));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      visit(`${at}.${k}`, k, v);
      walk(v, `${at}.${k}`, visit);
    }
  }
}

function mdxSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? mdxSources(path.join(dir, e.name))
      : e.name.endsWith(".mdx")
        ? [readFileSync(path.join(dir, e.name), "utf8")]
        : [],
  );
}

describe("example JSON files", () => {
  test("every example is imported by some page, or named by one and served to it (lib/docs/example-files.ts)", () => {
    const all = mdxSources(CONTENT_DIR).join("\n");
    for (const f of files) {
      const name = f.replace(/\.json$/, "");
      const used = new RegExp(`from "(\\./|\\./\\.\\./)examples/${name}\\.json"|<Example file="${name}"`);
      expect(all, `${f} is not used`).toMatch(used);
      if (all.includes(`<Example file="${name}"`))
        expect(exampleFileText(name), f).toBe(withBaseUrl(formatJson(load(f))));
    }
  });

  test.each(files)("%s: timestamps have six fractional digits, with Z except the spec's three fields", (f) => {
    walk(load(f), "", (p, _key, v) => {
      if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}T/.test(v)) return;
      const noZ = NO_Z_SUFFIXES.some((suffix) => p.endsWith(suffix));
      expect(v, `${f}: ${p}`).toMatch(noZ ? MICROS_NO_Z : MICROS_Z);
    });
  });

  test.each(files)("%s: index levels are decimal strings with eight places", (f) => {
    walk(load(f), "", (p, key, v) => {
      if (key === "indexLevel" || key === "baseIndexLevel") expect(v, `${f}: ${p}`).toMatch(/^\d+\.\d{8}$/);
    });
  });

  test.each(files)("%s: successes are { data, meta } with the common meta members", (f) => {
    const body = load(f) as Record<string, unknown>;
    if (!("data" in body)) return; // fragments such as gate flags or manifests
    expect(Object.keys(body)).toEqual(["data", "meta"]);
    const meta = body.meta as Record<string, unknown>;
    expect(Object.keys(meta).slice(0, 4)).toEqual(["attribution", "license", "termsUrl", "generatedAt"]);
  });

  test.each(files)("%s: formatJson round-trips and keeps lines short where it can", (f) => {
    const value = load(f);
    const text = formatJson(value);
    expect(JSON.parse(text)).toEqual(value);
    for (const line of text.split("\n")) {
      // a line may only run long when it holds a single long scalar
      if (line.length > 80)
        expect(line.trim()).toMatch(/^("[^"]+": )?("(?:[^"\\]|\\.)*"|-?[\d.e+-]+|true|false|null),?$/);
    }
  });
});
