// @ts-check
// Builds the production app when no build exists or its sources changed since the last one.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildServerBundle, SERVER_BUNDLE } from "./api-bundle.mjs";
import { buildPublicFiles, GENERATED_PUBLIC } from "./public-files.mjs";

const INPUTS = [
  "app",
  "components",
  "content",
  "lib",
  "public",
  "next.config.ts",
  "package-lock.json",
  "instrumentation.ts",
  "proxy.ts",
  "postcss.config.mjs",
  "mdx-components.tsx",
];

export function sourceFingerprint() {
  const hash = crypto.createHash("sha256");
  /** @param {string} p */
  const walk = (p) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        if (name === "node_modules" || name.startsWith(".") || GENERATED_PUBLIC.includes(path.join(p, name))) continue;
        walk(path.join(p, name));
      }
    } else {
      hash.update(`${p}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const p of INPUTS) walk(p);
  return hash.digest("hex");
}

/**
 * Returns true when it built, false when the existing build was current (`force`: build anyway,
 * as `npm run build` does); throws on failure. The stamp it writes lets `npm start` and the
 * benches reuse the build.
 */
export function ensureBuild({ quiet = false, force = false } = {}) {
  const stamp = path.join(".next", "source-fingerprint");
  // public/clients and public/tools (client packages, the verifier) are built from their own sources
  buildPublicFiles();
  const fingerprint = sourceFingerprint();
  const current =
    fs.existsSync(path.join(".next", "BUILD_ID")) &&
    fs.existsSync(SERVER_BUNDLE) &&
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, "utf8") === fingerprint;
  if (current && !force) return false;
  if (!quiet) console.log("building the application (first start or sources changed)...");
  const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: quiet ? "pipe" : "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PMB_BUILD: "1" },
  });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(r.stdout?.toString() ?? "");
    throw new Error("the build failed (see above)");
  }
  buildServerBundle();
  fs.writeFileSync(stamp, fingerprint);
  return true;
}

/**
 * The environment a production server process gets.
 * @param {Record<string, string>} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
export function serverEnv(extra = {}) {
  return { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...extra };
}
