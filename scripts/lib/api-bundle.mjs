// @ts-check
// The API process's code (lib/server/api-process.ts and what it imports) as one ES module, and
// the configuration's rules (lib/config.ts) as another,
// bundled by esbuild after `next build` (scripts/lib/build.mjs): the API process loads it with
// plain Node, never Next, and never a TypeScript loader at run time. Packages stay imports of
// node_modules; `@/` paths and TypeScript are resolved here, with the `react-server` condition
// the rest of the server code is built with.
import path from "node:path";
import { buildSync } from "esbuild";

const OUT = path.join(".next", "pmb-api");
export const API_BUNDLE = path.join(OUT, "api-process.mjs");
/** lib/config.ts alone: how scripts/lib/build.mjs reads the configuration (`serverCommand`). */
export const CONFIG_BUNDLE = path.join(OUT, "config.mjs");

/** Writes API_BUNDLE and CONFIG_BUNDLE (with source maps beside them) under `root`. */
export function buildApiBundle(root = process.cwd()) {
  buildSync({
    absWorkingDir: root,
    entryPoints: { "api-process": "lib/server/api-process.ts", config: "lib/config.ts" },
    outdir: OUT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    conditions: ["react-server"],
    tsconfig: "tsconfig.json",
    sourcemap: "linked",
    logLevel: "warning",
    // Some bundled modules call require() (node: built-ins): give the ES module one.
    banner: { js: 'import { createRequire as __pmbCreateRequire } from "node:module"; const require = __pmbCreateRequire(import.meta.url);' },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) buildApiBundle();
