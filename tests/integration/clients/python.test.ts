import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baseUrl, newKey } from "../support/api";

// The Python client's own unittest suite (clients/python/tests), run with python3 against the
// running server: a fresh key for the calls and a key allowed one request a minute for the 429s.
// It runs from a copy of clients/python outside the repository, as a user who copied the folder would.
describe("Python client (python3 -m unittest)", () => {
  it("passes every test, none skipped", async () => {
    const key = (await newKey()).key;
    const limited = (await newKey({ limitMinute: 1 })).key;
    const copy = mkdtempSync(path.join(os.tmpdir(), "pmb-python-client-"));
    cpSync("clients/python", copy, { recursive: true, filter: (from) => !from.includes("__pycache__") });
    const run = spawnSync("python3", ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."], {
      cwd: copy,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", PMB_BASE_URL: baseUrl(), PMB_API_KEY: key, PMB_LIMITED_KEY: limited, PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
      timeout: 120_000,
    });
    rmSync(copy, { recursive: true, force: true });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/^OK$/m);
    expect(output, "a test was skipped").not.toMatch(/skipped/);
    expect(Number(/Ran (\d+) tests/.exec(output)?.[1])).toBeGreaterThanOrEqual(15);
  }, 150_000);
});
