import { readFileSync } from "node:fs";
import path from "node:path";
import { evaluate } from "@mdx-js/mdx";
import { createElement } from "react";
import * as runtime from "react/jsx-runtime";
import { renderToStaticMarkup } from "react-dom/server";
import { useMDXComponents } from "@/mdx-components";
import { CONTENT_DIR } from "@/lib/docs/content";
import type { DocPage } from "@/lib/docs/pages";

/** `import name from "./examples/x.json"` becomes an inline export, so evaluate() needs no module loader. */
function inlineJsonImports(source: string, dir: string): string {
  return source.replaceAll(/^import\s+(\w+)\s+from\s+"([^"]+\.json)";?[ \t]*$/gm, (_, name: string, file: string) => {
    const json = readFileSync(path.resolve(dir, file), "utf8");
    return `export const ${name} = ${JSON.stringify(JSON.parse(json))};`;
  });
}

const cache = new Map<string, string>();

/**
 * Renders a docs page's MDX to static HTML with the site's own MDX components, the way the page
 * route does (minus the layout), so tests can look for element ids without a running server.
 */
export async function renderDocPage(page: DocPage): Promise<string> {
  const hit = cache.get(page.file);
  if (hit !== undefined) return hit;
  const file = path.join(CONTENT_DIR, page.file);
  const source = inlineJsonImports(readFileSync(file, "utf8"), path.dirname(file));
  const { default: Content } = await evaluate(source, { ...runtime, useMDXComponents, baseUrl: `file://${file}` });
  const html = renderToStaticMarkup(createElement(Content));
  cache.set(page.file, html);
  return html;
}

/** Every `id="..."` in rendered HTML. */
export function idsIn(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] ?? ""));
}
