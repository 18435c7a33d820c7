// @ts-check
// The production server's code (lib/server/http-server.ts and what it imports: the /v1 front,
// lib/api, boot) as one ES module, and the configuration's rules (lib/config.ts) as another,
// bundled by esbuild after `next build` (scripts/lib/build.mjs): scripts/server.mjs loads it with
// plain Node, never a TypeScript loader at run time. Packages stay imports of node_modules
// (Next among them); `@/` paths and TypeScript are resolved here, with the `react-server`
// condition the rest of the server code is built with.
import path from "node:path";
import { buildSync } from "esbuild";

const OUT = path.join(".next", "pmb-server");
export const SERVER_BUNDLE = path.join(OUT, "server.mjs");
/** lib/config.ts alone: how scripts read the configuration without a TypeScript loader. */
export const CONFIG_BUNDLE = path.join(OUT, "config.mjs");

/** Writes SERVER_BUNDLE and CONFIG_BUNDLE (with source maps beside them) under `root`. */
export function buildServerBundle(root = process.cwd()) {
  buildSync({
    absWorkingDir: root,
    entryPoints: { server: "lib/server/http-server.ts", config: "lib/config.ts" },
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
    // `server-only` marks modules Next must not send to a browser; here its react-server file
    // (empty) is bundled, since this process runs without that condition (Next shares it).
    alias: { "server-only": "./node_modules/server-only/empty.js" },
    // Some bundled modules call require() (node: built-ins): give the ES module one.
    banner: {
      js: 'import { createRequire as __pmbCreateRequire } from "node:module"; const require = __pmbCreateRequire(import.meta.url);',
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) buildServerBundle();
