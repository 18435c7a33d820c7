import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responses } from "@/lib/openapi/schemas";
import { API_EXAMPLES, EXAMPLE_BASE_URL, SCRIPT_EXAMPLES, examplePath } from "@/lib/docs/examples";
import { DOC_PAGES, docHref } from "@/lib/docs/pages";
import { baseUrl, newKey } from "../support/api";

// Every example in the docs, as the server renders it (curl, TypeScript and Python tabs), runs
// against the test server: the curl with bash and curl, the TypeScript with tsx and the client in
// clients/typescript, the Python with python3 and clients/python. Each exits 0; a single-request
// example's curl output has the documented shape.

interface RenderedExample {
  page: string;
  example: string;
  lang: "curl" | "ts" | "py";
  code: string;
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
};
const text = (html: string) =>
  html.replaceAll(/<[^>]+>/g, "").replaceAll(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]!);

/** The tab panels of a rendered page: data-example on the group, data-example-lang on each panel. */
function examplesIn(page: string, html: string): RenderedExample[] {
  const found: RenderedExample[] = [];
  for (const group of html.split('data-example="').slice(1)) {
    const example = group.slice(0, group.indexOf('"'));
    for (const m of group.matchAll(/data-example-lang="(curl|ts|py)"[\s\S]*?<code[^>]*>([\s\S]*?)<\/code>/g)) {
      found.push({ page, example, lang: m[1] as RenderedExample["lang"], code: text(m[2]!) });
    }
  }
  return found;
}

const ROUTES: Array<[RegExp, keyof typeof responses]> = [
  [/^\/v1$/, "service"],
  [/^\/v1\/indices$/, "indices"],
  [/^\/v1\/indices\/[^/]+\/latest$/, "indexLatest"],
  [/^\/v1\/indices\/[^/]+\/history$/, "indexHistory"],
  [/^\/v1\/indices\/[^/]+\/reconstitutions$/, "indexReconstitutions"],
  [/^\/v1\/volatility$/, "volatility"],
  [/^\/v1\/volatility\/[^/]+\/latest$/, "volatilityLatest"],
  [/^\/v1\/volatility\/[^/]+\/history$/, "volatilityHistory"],
  [/^\/v1\/downloads$/, "downloads"],
];

let key = "";
let dir = "";
const rendered: RenderedExample[] = [];
const pages = new Map<string, string>();

beforeAll(async () => {
  key = (await newKey()).key;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-docs-examples-"));
  for (const page of DOC_PAGES) {
    const res = await fetch(`${baseUrl()}${docHref(page)}`);
    expect(res.status, docHref(page)).toBe(200);
    const html = await res.text();
    pages.set(docHref(page), html);
    rendered.push(...examplesIn(docHref(page), html));
  }
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs one rendered example as a user would; async, so the test worker stays responsive. */
function run(example: RenderedExample): Promise<{ status: number; output: string; stdout: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "test",
    PMB_API_KEY: key,
    PYTHONPATH: path.resolve("clients/python"),
    PYTHONDONTWRITEBYTECODE: "1",
  };
  let command: string[];
  if (example.lang === "curl") {
    command = ["bash", "-eo", "pipefail", "-c", example.code];
  } else if (example.lang === "ts") {
    const file = path.join(dir, `${example.example}.mts`);
    // the package name resolves to the client's sources in this repository
    // (and the packages an example says to install, to this project's copy)
    fs.writeFileSync(
      file,
      example.code
        .replaceAll('"@pm-benchmarks/client"', JSON.stringify(path.resolve("clients/typescript/src/index.ts")))
        .replaceAll('from "fflate"', `from ${JSON.stringify(path.resolve("node_modules/fflate/esm/index.mjs"))}`),
    );
    command = [path.resolve("node_modules/.bin/tsx"), file];
  } else {
    const file = path.join(dir, `${example.example}.py`);
    fs.writeFileSync(file, example.code);
    command = ["python3", file];
  }
  return new Promise((resolve) => {
    // each in a folder of its own: an example that writes files (the bundle sync) starts from nothing
    const cwd = fs.mkdtempSync(path.join(dir, `${example.example}-${example.lang}-`));
    execFile(
      command[0]!,
      command.slice(1),
      { env, encoding: "utf8", timeout: 90_000, cwd },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ status, output: `${stdout}\n${stderr}`, stdout });
      },
    );
  });
}

const CASES = [...Object.keys(API_EXAMPLES), ...Object.keys(SCRIPT_EXAMPLES)].flatMap((id) =>
  (["curl", "ts", "py"] as const).map((lang) => [id, lang] as const),
);

describe("code examples in the docs", () => {
  it("the quickstart and every endpoint page show curl, TypeScript and Python tabs", () => {
    const endpointPages = DOC_PAGES.filter((p) => p.title.startsWith("GET /")).map(docHref);
    expect(endpointPages.length).toBe(9);
    for (const page of ["/docs/quickstart", ...endpointPages]) {
      const langs = rendered.filter((e) => e.page === page).map((e) => e.lang);
      expect(new Set(langs), page).toEqual(new Set(["curl", "ts", "py"]));
    }
    // one request example per endpoint
    const covered = new Set(
      Object.values(API_EXAMPLES).map((e) => ROUTES.find(([re]) => re.test(examplePath(e).split("?")[0]!))?.[1]),
    );
    expect([...covered].sort()).toEqual(Object.keys(responses).sort());
  });

  it("every example shows the one base address, PUBLIC_BASE_URL, and no placeholder host", () => {
    expect(rendered.length).toBeGreaterThanOrEqual(36);
    for (const e of rendered) {
      expect(e.code, `${e.page} ${e.example} ${e.lang}`).not.toContain(EXAMPLE_BASE_URL);
      for (const url of e.code.match(/https?:\/\/[^\s"'`/]+/g) ?? [])
        expect(url, `${e.page} ${e.example} ${e.lang}`).toBe(baseUrl());
    }
    // the same on every docs page, code blocks and JSON examples included
    for (const [page, html] of pages) {
      for (const code of html.match(/<code[^>]*>[\s\S]*?<\/code>/g) ?? []) {
        for (const url of text(code).match(/https?:\/\/(?:localhost|127\.0\.0\.1|[\w.-]*example\.com)[^\s"'`]*/g) ??
          []) {
          expect(url.startsWith(baseUrl()), `${page}: ${url}`).toBe(true);
        }
      }
    }
  });

  it("every example of lib/docs/examples.ts is shown on some page", () => {
    const shown = new Set(rendered.map((e) => `${e.example}:${e.lang}`));
    for (const [id, lang] of CASES) expect(shown, `${id}:${lang}`).toContain(`${id}:${lang}`);
  });

  it.each(CASES)(
    "%s (%s) runs against the server and exits 0",
    async (id, lang) => {
      const example = rendered.find((e) => e.example === id && e.lang === lang);
      expect(example, `${id}:${lang} is not on any page`).toBeDefined();
      const r = await run(example!);
      expect(r.status, `${example!.code}\n---\n${r.output.slice(0, 3000)}`).toBe(0);
      expect(r.stdout.trim(), r.output).not.toBe("");
      const single = (API_EXAMPLES as Record<string, (typeof API_EXAMPLES)[keyof typeof API_EXAMPLES]>)[id];
      if (lang === "curl" && single) {
        // the documented request answers 200 with the documented shape
        const route = ROUTES.find(([re]) => re.test(examplePath(single).split("?")[0]!))!;
        const parsed = responses[route[1]].safeParse(JSON.parse(r.stdout));
        expect(parsed.error?.issues.slice(0, 3) ?? []).toEqual([]);
      }
    },
    120_000,
  );
});
