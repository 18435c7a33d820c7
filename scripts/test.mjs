#!/usr/bin/env node
// @ts-check
// `npm test`: every layer (types and lint, unit, integration against real PostgreSQL and Redis,
// Playwright in Debian's Chromium), then one summary. Installs Chromium with apt-get if missing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuild } from "./lib/build.mjs";
import { reachPostgres } from "./lib/database.mjs";

process.chdir(path.resolve(path.dirname(new URL(import.meta.url).pathname), ".."));
const reports = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-test-"));
const results = [];
const only = process.argv.slice(2);

/**
 * @param {string} name
 * @param {string} cmd
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 * @param {() => string} [count]
 */
function run(name, cmd, args, env = {}, count = () => "") {
  if (only.length && !only.includes(name)) return;
  console.log(`\n=== ${name}: ${cmd} ${args.join(" ")}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  const ok = r.status === 0;
  // exit code too: vitest fails a run on an unhandled error that no test's count shows
  const detail = count() + (ok ? "" : ` (exit ${r.status ?? r.signal})`);
  results.push({ name, ok, seconds: (Date.now() - started) / 1000, detail });
}

/** @param {string} file */
function vitestCount(file) {
  return () => {
    try {
      const j = JSON.parse(fs.readFileSync(file, "utf8"));
      const counts = `${j.numPassedTests} passed, ${j.numFailedTests} failed, ${j.numPendingTests} skipped`;
      // A file can fail with every test passed (a hook, an import, an unhandled error): name it and why.
      const files = (j.testResults ?? [])
        .filter((/** @type {{status: string}} */ f) => f.status === "failed")
        .map(
          (/** @type {{name: string, message?: string}} */ f) =>
            `\n      ${path.relative(process.cwd(), f.name)}: ${(f.message || "failed").split("\n")[0]?.slice(0, 300)}`,
        );
      return counts + (files.length ? `; failed files:${files.join("")}` : "");
    } catch {
      return "no report";
    }
  };
}

/** @param {string} file */
function playwrightCount(file) {
  return () => {
    try {
      const report = JSON.parse(fs.readFileSync(file, "utf8"));
      const s = report.stats;
      const counts = `${s.expected} passed, ${s.unexpected} failed, ${s.flaky} flaky, ${s.skipped} skipped`;
      // The list reporter's account of a failure scrolls out of a CI log's tail: name each failed
      // (or flaky) test here with the first lines of its error.
      const lines = playwrightFailures(report).map((f) => `\n      ${f}`);
      return counts + (lines.length ? `; failed or flaky:${lines.join("")}` : "");
    } catch {
      return "no report";
    }
  };
}

/**
 * @param {any} report Playwright's JSON report
 * @returns {string[]}
 */
function playwrightFailures(report) {
  /** @type {string[]} */
  const out = [];
  /** @param {any} suite @param {string[]} titles */
  const walk = (suite, titles) => {
    const here = suite.title && !suite.title.endsWith(".ts") ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected" && test.status !== "flaky") continue;
        const failed = (test.results ?? []).find((/** @type {any} */ r) => r.status !== "passed");
        const message = String(failed?.error?.message ?? failed?.status ?? "failed")
          .replace(/\u001b\[[0-9;]*m/g, "")
          .split("\n")
          .filter((l) => l.trim())
          .slice(0, 8)
          .join("\n        ")
          .slice(0, 1200);
        out.push(`${test.status}: ${spec.file}:${spec.line} ${[...here, spec.title].join(" › ")}\n        ${message}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return out;
}

function ensureChromium() {
  if (fs.existsSync("/usr/bin/chromium")) return;
  console.log("installing Debian's chromium for the browser tests...");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  /** @param {string[]} args */
  const apt = (args) =>
    spawnSync(sudo[0] ?? "apt-get", [...sudo.slice(1), ...(sudo.length ? ["apt-get"] : []), ...args], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  let r = apt(["install", "-y", "--no-install-recommends", "chromium"]);
  if (r.status !== 0) {
    apt(["update"]);
    r = apt(["install", "-y", "--no-install-recommends", "chromium"]);
  }
  if (r.status !== 0 || !fs.existsSync("/usr/bin/chromium")) {
    console.error("npm test: could not install chromium with apt-get");
    process.exit(1);
  }
}

/** The Python client's DataFrame test needs pandas: Debian's python3-pandas when no python3 has it. */
function ensurePandas() {
  const has = (/** @type {string} */ py) => spawnSync(py, ["-c", "import pandas"], { stdio: "ignore" }).status === 0;
  if (has("python3") || has("/usr/bin/python3")) return;
  console.log("installing Debian's python3-pandas for the Python client's tests...");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  spawnSync(
    sudo[0] ?? "apt-get",
    [
      ...sudo.slice(1),
      ...(sudo.length ? ["apt-get"] : []),
      "install",
      "-y",
      "--no-install-recommends",
      "python3-pandas",
    ],
    {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    },
  );
}

const pgUrl = process.env.TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
const reach = await reachPostgres(pgUrl);
if (!reach.ok) {
  console.error(`npm test: ${reach.message}. Start PostgreSQL (see README) and run again.`);
  process.exit(1);
}
if (!only.length || only.includes("e2e")) ensureChromium();
if (!only.length || only.includes("integration")) ensurePandas();

const vitest = ["node_modules/vitest/vitest.mjs", "run"];
run("typecheck", process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]);
run("lint", process.execPath, ["node_modules/eslint/bin/eslint.js", "--max-warnings=0", "."]);
run("format", process.execPath, ["node_modules/prettier/bin/prettier.cjs", "--check", "."]);
const unitReport = path.join(reports, "unit.json");
run(
  "unit",
  process.execPath,
  [...vitest, "--project", "unit", "--reporter=default", "--reporter=json", `--outputFile.json=${unitReport}`],
  {},
  vitestCount(unitReport),
);

if (!only.length || only.some((n) => n === "integration" || n === "faults" || n === "e2e")) {
  const started = Date.now();
  try {
    ensureBuild();
    results.push({ name: "build", ok: true, seconds: (Date.now() - started) / 1000, detail: "" });
  } catch (error) {
    results.push({
      name: "build",
      ok: false,
      seconds: (Date.now() - started) / 1000,
      detail: /** @type {Error} */ (error).message,
    });
  }
}
const built = results.find((r) => r.name === "build")?.ok !== false;
if (built) {
  const intReport = path.join(reports, "integration.json");
  run(
    "integration",
    process.execPath,
    [
      ...vitest,
      "--project",
      "integration",
      "--exclude",
      "tests/integration/faults/**",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${intReport}`,
    ],
    { TEST_PG_URL: pgUrl },
    vitestCount(intReport),
  );
  // Fault injection with real processes: SIGKILLed servers, a Redis and a database that go away.
  run(
    "faults",
    process.execPath,
    [
      ...vitest,
      "--project",
      "integration",
      "tests/integration/faults",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${intReport}.faults`,
    ],
    { TEST_PG_URL: pgUrl },
    vitestCount(`${intReport}.faults`),
  );
  const e2eReport = path.join(reports, "e2e.json");
  run(
    "e2e",
    process.execPath,
    ["node_modules/@playwright/test/cli.js", "test", "--reporter=list,json"],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eReport, CI: "1" },
    playwrightCount(e2eReport),
  );
}

console.log("\n=== summary");
for (const r of results) {
  console.log(`${r.ok ? "PASS" : "FAIL"}  ${r.name.padEnd(12)} ${r.seconds.toFixed(1).padStart(6)} s  ${r.detail}`);
}
const failed = results.filter((r) => !r.ok);
console.log(
  failed.length ? `\n${failed.length} layer(s) failed: ${failed.map((r) => r.name).join(", ")}` : "\nall layers passed",
);
process.exit(failed.length ? 1 : 0);
