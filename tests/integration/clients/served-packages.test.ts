import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";

// Rule: the client packages install from the product itself. The built server serves an npm
// tarball of clients/typescript and a wheel of clients/python under /clients/ (built into
// public/clients at build time); each installs by its URL into an empty folder and imports.

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (status) => resolve({ status, out }));
  });
}

// Outside the repository: none of its node_modules/.bin folders on the PATH.
const PATH = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => !dir.includes(`node_modules${path.sep}.bin`))
  .join(path.delimiter);

const work: string[] = [];
const emptyFolder = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  work.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of work) fs.rmSync(dir, { recursive: true, force: true });
});

describe("client packages served by the product", () => {
  it("the wheel, by its URL, pip-installs into an empty folder and imports at the served version", async () => {
    const url = `${baseUrl()}/clients/pmb_client-1.0.0-py3-none-any.whl`;
    const head = await fetch(url);
    expect(head.status).toBe(200);
    await head.arrayBuffer();
    const target = emptyFolder("pmb-wheel-");
    const pip = await run(
      "python3",
      ["-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", "--target", target, url],
      target,
      { PATH, PIP_NO_CACHE_DIR: "1" },
    );
    expect(pip.status, pip.out).toBe(0);
    const imported = await run(
      "python3",
      [
        "-c",
        "import pmb_client, json; print(json.dumps([pmb_client.__version__, pmb_client.__file__, callable(pmb_client.to_dataframe)]))",
      ],
      target,
      { PATH, PYTHONPATH: target },
    );
    expect(imported.status, imported.out).toBe(0);
    const [version, file, hasFrames] = JSON.parse(imported.out.trim().split("\n").at(-1)!) as [string, string, boolean];
    expect(version).toBe("1.0.0");
    expect(file.startsWith(target)).toBe(true);
    expect(hasFrames).toBe(true);
  }, 120_000);

  it("the npm tarball, by its URL, npm-installs into an empty project and imports", async () => {
    const url = `${baseUrl()}/clients/pm-benchmarks-client-1.0.0.tgz`;
    const consumer = emptyFolder("pmb-tgz-");
    fs.writeFileSync(
      path.join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    const npm = await run("npm", ["install", url, "--no-audit", "--no-fund", "--prefer-offline"], consumer, {
      PATH,
      npm_config_loglevel: "error",
    });
    expect(npm.status, npm.out).toBe(0);
    fs.writeFileSync(
      path.join(consumer, "check.mjs"),
      `import { PmbClient } from "@pm-benchmarks/client";\nconsole.log(JSON.stringify([typeof PmbClient, typeof new PmbClient({ apiKey: "svc_live_x", baseUrl: "http://127.0.0.1:1" }).indexLatest]));`,
    );
    const imported = await run(process.execPath, ["check.mjs"], consumer, { PATH });
    expect(imported.status, imported.out).toBe(0);
    expect(JSON.parse(imported.out.trim().split("\n").at(-1)!)).toEqual(["function", "function"]);
    const installed = JSON.parse(
      fs.readFileSync(path.join(consumer, "node_modules", "@pm-benchmarks", "client", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe("1.0.0");
  }, 180_000);

  it("the quickstart links both packages and shows install commands naming their served addresses", async () => {
    const html = await (await fetch(`${baseUrl()}/docs/quickstart`)).text();
    const links = [...new Set([...html.matchAll(/href="(\/clients\/[^"]+)"/g)].map((m) => m[1]!))].sort();
    expect(links).toEqual(["/clients/pm-benchmarks-client-1.0.0.tgz", "/clients/pmb_client-1.0.0-py3-none-any.whl"]);
    for (const link of links) {
      expect(html).toContain(`${baseUrl()}${link}`); // the install command, at this server's address
      const res = await fetch(`${baseUrl()}${link}`);
      expect(res.status, link).toBe(200);
      expect(Number(res.headers.get("content-length") ?? (await res.arrayBuffer()).byteLength)).toBeGreaterThan(1000);
    }
  });

  it("the single-file verifier is served beside them", async () => {
    const res = await fetch(`${baseUrl()}/tools/recompute_bundles.py`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(fs.readFileSync("scripts/outside/recompute_bundles.py", "utf8"));
  });
});
