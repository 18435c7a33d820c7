import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The TypeScript client as a user gets it: a copy of clients/typescript outside the repository
// builds and packs with its own package.json (`npm install`, `npm pack`), and the packed tarball,
// installed into an empty project, behaves as its README says against a scripted HTTP server.

/** Runs a command without blocking this process (the scripted servers below answer from it). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeout = 180_000,
): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

// Outside the repository: none of its node_modules/.bin folders (npx and npm scripts add them) on the PATH.
const PATH = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => !dir.includes(`node_modules${path.sep}.bin`))
  .join(path.delimiter);

async function npm(args: string[], cwd: string): Promise<void> {
  const { status, out } = await run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], cwd, {
    HOME: process.env.HOME ?? os.homedir(),
    PATH,
    npm_config_loglevel: "error",
  });
  expect(status, `npm ${args.join(" ")}:\n${out}`).toBe(0);
}

let work = "";
let consumer = "";

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "pmb-ts-client-"));
  const copy = path.join(work, "client");
  cpSync("clients/typescript", copy, {
    recursive: true,
    filter: (from) => !/[\\/](node_modules|dist)$/.test(from) && !from.endsWith(".tgz"),
  });
  await npm(["install"], copy);
  await npm(["pack", "--pack-destination", work], copy);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  expect(tarball, "npm pack wrote a tarball").toBeTruthy();
  consumer = path.join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  await npm(["install", path.join(work, tarball!)], consumer);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs an ESM script in the consumer project (so the import resolves the installed package). */
function runInConsumer(source: string, env: Record<string, string>): Promise<{ status: number | null; out: string }> {
  const file = path.join(consumer, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  return run(process.execPath, [file], consumer, { PATH, ...env }, 60_000);
}

/** A local server answering each request with the next scripted response. */
async function scripted(
  script: Array<[number, Record<string, string>, unknown]>,
): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) => {
    const [status, headers, body] = script.shift() ?? [500, {}, {}];
    res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": "req-1", ...headers });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe("TypeScript client packed from a copy of its folder", () => {
  it("the tarball holds the built JavaScript and its types", () => {
    const files = spawnSync(
      "tar",
      [
        "-tzf",
        path.join(
          work,
          readdirSync(work).find((f) => f.endsWith(".tgz"))!,
        ),
      ],
      { encoding: "utf8" },
    ).stdout;
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/index.d.ts");
    expect(files).toContain("package/README.md");
  });

  it("by default waits out a full minute window: Retry-After 61 is retried, not thrown", async () => {
    const rateLimited = {
      error: { code: "rate_limited", message: "m", docsUrl: "http://x/docs/errors#rate_limited", requestId: "rid" },
    };
    const server = await scripted([[429, { "Retry-After": "61" }, rateLimited]]);
    try {
      // The retry hook stops the wait (a thrown hook ends the call), so the test does not sleep a minute.
      const { status, out } = await runInConsumer(
        `import { PmbClient, RateLimitedError, DEFAULT_MAX_RETRY_WAIT_SECONDS } from "@pm-benchmarks/client";
const waits = [];
const client = new PmbClient({ apiKey: "svc_live_test", baseUrl: process.env.BASE, onRetry: ({ waitSeconds }) => { waits.push(waitSeconds); throw new Error("stop"); } });
const error = await client.get("/v1").catch((e) => e);
console.log(JSON.stringify({ waits, stopped: error.message === "stop", rateLimited: error instanceof RateLimitedError, cap: DEFAULT_MAX_RETRY_WAIT_SECONDS }));`,
        { BASE: server.url },
      );
      expect(status, out).toBe(0);
      const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
        waits: number[];
        stopped: boolean;
        rateLimited: boolean;
        cap: number;
      };
      expect(result).toEqual({ waits: [61], stopped: true, rateLimited: false, cap: result.cap });
      expect(result.cap).toBeGreaterThanOrEqual(65);
    } finally {
      server.close();
    }
  });

  it("attrDeltaFrom comes back as a UTC Date, like every timestamp", async () => {
    const point = {
      t: "2026-11-21T13:00:00.000000Z",
      attrDeltaFrom: "2026-11-21T12:00:00.000000",
      attrDeltaFromPublished: true,
    };
    const server = await scripted([
      [200, {}, { data: { points: [point, { ...point, attrDeltaFrom: null }] }, meta: {} }],
    ]);
    try {
      const { status, out } = await runInConsumer(
        `import { PmbClient } from "@pm-benchmarks/client";
const client = new PmbClient({ apiKey: "svc_live_test", baseUrl: process.env.BASE });
const { data } = await client.get("/v1/x");
const [a, b] = data.points;
console.log(JSON.stringify({ isDate: a.attrDeltaFrom instanceof Date, iso: a.attrDeltaFrom.toISOString(), none: b.attrDeltaFrom }));`,
        { BASE: server.url, TZ: "America/New_York" },
      );
      expect(status, out).toBe(0);
      expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({
        isDate: true,
        iso: "2026-11-21T12:00:00.000Z",
        none: null,
      });
    } finally {
      server.close();
    }
  });
});
