// @ts-check
// Static files the product serves from public/ that are built from the repository's own sources:
// the client packages (an npm tarball of clients/typescript, a wheel of clients/python) under
// public/clients/ and the single-file bundle verifier under public/tools/. Written only when an
// input changed (a stamp of the inputs' hash), byte-for-byte the same for the same sources.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";

/** Folders of public/ written here (not sources: ignored by git and by the build's fingerprint). */
export const GENERATED_PUBLIC = [path.join("public", "clients"), path.join("public", "tools")];

const TS = "clients/typescript";
const PY = "clients/python";
const VERIFIER = "scripts/outside/recompute_bundles.py";

/** @param {string} dir @returns {string[]} files under dir, sorted, without caches or builds */
function files(dir) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ p) => {
    for (const name of fs.readdirSync(p).sort()) {
      if (
        ["node_modules", "dist", "__pycache__", "tests"].includes(name) ||
        name.startsWith(".") ||
        name.endsWith(".tgz")
      )
        continue;
      const full = path.join(p, name);
      if (fs.statSync(full).isDirectory()) walk(full);
      else out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Name and version of the Python package, from its pyproject.toml. */
export function pythonPackage() {
  const text = fs.readFileSync(path.join(PY, "pyproject.toml"), "utf8");
  const name = /^name\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  const version = /^version\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  const summary = /^description\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? "";
  const requires = /^requires-python\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? ">=3.8";
  if (!name || !version) throw new Error(`${PY}/pyproject.toml: no name or version`);
  return { name, version, summary, requires, wheel: `${name.replace(/-/g, "_")}-${version}-py3-none-any.whl` };
}

/** Name, version and tarball name of the TypeScript package (as `npm pack` names it). */
export function typescriptPackage() {
  const pkg = JSON.parse(fs.readFileSync(path.join(TS, "package.json"), "utf8"));
  return {
    name: pkg.name,
    version: pkg.version,
    tarball: `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`,
  };
}

const b64url = (/** @type {Buffer} */ b) =>
  b.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * A pure-Python wheel (PEP 427): the package's modules, METADATA, WHEEL and RECORD, zipped with a
 * fixed date so the same sources give the same bytes. pip installs it from a URL or a path.
 */
export function buildWheel() {
  const { name, version, summary, requires, wheel } = pythonPackage();
  const distInfo = `${name.replace(/-/g, "_")}-${version}.dist-info`;
  /** @type {Array<[string, Buffer]>} */
  const entries = files(path.join(PY, "pmb_client"))
    .filter((f) => f.endsWith(".py"))
    .map((f) => [path.relative(PY, f).split(path.sep).join("/"), fs.readFileSync(f)]);
  const readme = fs.existsSync(path.join(PY, "README.md")) ? fs.readFileSync(path.join(PY, "README.md"), "utf8") : "";
  const metadata = [
    "Metadata-Version: 2.1",
    `Name: ${name}`,
    `Version: ${version}`,
    `Summary: ${summary}`,
    `Requires-Python: ${requires}`,
    "Provides-Extra: pandas",
    'Requires-Dist: pandas; extra == "pandas"',
    "Description-Content-Type: text/markdown",
    "",
    readme,
  ].join("\n");
  entries.push([`${distInfo}/METADATA`, Buffer.from(metadata)]);
  entries.push([
    `${distInfo}/WHEEL`,
    Buffer.from("Wheel-Version: 1.0\nGenerator: pm-benchmarks\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
  ]);
  entries.push([`${distInfo}/top_level.txt`, Buffer.from("pmb_client\n")]);
  const record = entries.map(
    ([p, b]) => `${p},sha256=${b64url(crypto.createHash("sha256").update(b).digest())},${b.length}`,
  );
  record.push(`${distInfo}/RECORD,,`);
  entries.push([`${distInfo}/RECORD`, Buffer.from(record.join("\n") + "\n")]);
  const mtime = new Date(1980, 0, 2); // local fields, as zip stores them: the same on every host
  /** @type {Record<string, [Uint8Array, { mtime: Date }]>} */
  const zip = {};
  for (const [p, b] of entries) zip[p] = [b, { mtime }];
  return { name: wheel, bytes: Buffer.from(zipSync(zip, { level: 9 })) };
}

/**
 * The TypeScript client as `npm pack` makes it: compiled with this project's TypeScript (the
 * client's own dev dependency is not needed), packed with its own package.json's `files`.
 * Staged under .next/ so decimal.js's types resolve from this project's node_modules.
 */
export function buildTarball() {
  const stage = path.join(".next", "client-pack");
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const name of ["package.json", "README.md", "tsconfig.json"])
    fs.copyFileSync(path.join(TS, name), path.join(stage, name));
  fs.cpSync(path.join(TS, "src"), path.join(stage, "src"), { recursive: true });
  const tsc = spawnSync(
    process.execPath,
    [path.join("node_modules", "typescript", "bin", "tsc"), "-p", path.join(stage, "tsconfig.json")],
    { encoding: "utf8" },
  );
  if (tsc.status !== 0) throw new Error(`compiling ${TS} failed:\n${tsc.stdout}${tsc.stderr}`);
  const out = path.join(stage, "out");
  fs.mkdirSync(out);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const pack = spawnSync(npm, ["pack", "--ignore-scripts", "--silent", "--pack-destination", path.resolve(out)], {
    cwd: stage,
    encoding: "utf8",
  });
  if (pack.status !== 0) throw new Error(`npm pack of ${TS} failed:\n${pack.stdout}${pack.stderr}`);
  const { tarball } = typescriptPackage();
  const bytes = fs.readFileSync(path.join(out, tarball));
  fs.rmSync(stage, { recursive: true, force: true });
  return { name: tarball, bytes };
}

function inputsHash() {
  const hash = crypto.createHash("sha256");
  for (const f of [...files(TS), ...files(PY), VERIFIER, "scripts/lib/public-files.mjs"])
    hash.update(`${f}\n`).update(fs.readFileSync(f));
  return hash.digest("hex");
}

/** Writes public/clients/* and public/tools/* when their sources changed; returns true when it wrote. */
export function buildPublicFiles() {
  const [clientsDir, toolsDir] = /** @type {[string, string]} */ (GENERATED_PUBLIC);
  const stamp = path.join(clientsDir, ".inputs-sha256");
  const hash = inputsHash();
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash) return false;
  fs.rmSync(clientsDir, { recursive: true, force: true });
  fs.rmSync(toolsDir, { recursive: true, force: true });
  fs.mkdirSync(clientsDir, { recursive: true });
  fs.mkdirSync(toolsDir, { recursive: true });
  for (const file of [buildTarball(), buildWheel()]) fs.writeFileSync(path.join(clientsDir, file.name), file.bytes);
  fs.copyFileSync(VERIFIER, path.join(toolsDir, path.basename(VERIFIER)));
  fs.writeFileSync(stamp, hash);
  return true;
}
