// @ts-check
// Builds the production app when no build exists or its sources changed since the last one.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildApiBundle, CONFIG_BUNDLE } from "./api-bundle.mjs";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

const INPUTS = ["app", "components", "content", "lib", "public", "next.config.ts", "package-lock.json", "instrumentation.ts", "proxy.ts", "postcss.config.mjs", "mdx-components.tsx"];

export function sourceFingerprint() {
  const hash = crypto.createHash("sha256");
  /** @param {string} p */
  const walk = (p) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        walk(path.join(p, name));
      }
    } else {
      hash.update(`${p}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const p of INPUTS) walk(p);
  return hash.digest("hex");
}

/** Returns true when it built, false when the existing build was current; throws on failure. */
export function ensureBuild({ quiet = false } = {}) {
  const stamp = path.join(".next", "source-fingerprint");
  const fingerprint = sourceFingerprint();
  const current =
    fs.existsSync(path.join(".next", "BUILD_ID")) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === fingerprint;
  if (current) return false;
  if (!quiet) console.log("building the application (first start or sources changed)...");
  const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: quiet ? "pipe" : "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PMB_BUILD: "1" },
  });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(r.stdout?.toString() ?? "");
    throw new Error("the build failed (see above)");
  }
  buildApiBundle();
  fs.writeFileSync(stamp, fingerprint);
  return true;
}

/**
 * The node arguments that run the production server for `env`: the API process, which serves /v1
 * and runs scripts/server.mjs as its child for the rest (lib/server/api-process.ts; its flags are
 * its own, the child runs without them), when the configuration says so (`apiProcess`,
 * lib/config.ts, read from the build); else scripts/server.mjs (Next with the node:http front).
 * A configuration that is not valid fails here, before the server starts.
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<string[]>}
 */
export async function serverCommand(env) {
  /** @type {{ parseConfig(env: Record<string, string | undefined>): { apiProcess: boolean } }} */
  const { parseConfig } = await import(pathToFileURL(path.join(ROOT, CONFIG_BUNDLE)).href);
  return parseConfig(env).apiProcess
    ? ["--conditions=react-server", "--enable-source-maps", "scripts/api-server.mjs"]
    : ["scripts/server.mjs"];
}

/**
 * The environment a production server process gets.
 * @param {Record<string, string>} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
export function serverEnv(extra = {}) {
  return { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...extra };
}
