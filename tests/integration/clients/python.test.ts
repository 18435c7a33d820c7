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
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "test",
        PMB_BASE_URL: baseUrl(),
        PMB_API_KEY: key,
        PMB_LIMITED_KEY: limited,
        PYTHONDONTWRITEBYTECODE: "1",
      },
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

// The optional DataFrame of a history, with pandas itself: Debian's python3-pandas (for the
// system interpreter) or any python3 on the PATH that has pandas. The stand-in test in
// tests/test_frames.py covers the conversion wherever pandas is missing.
describe("Python client's to_dataframe with pandas", () => {
  it("builds a DataFrame indexed by aware UTC t, oldest first, levels exact", () => {
    const interpreter = ["python3", "/usr/bin/python3"].find(
      (py) => spawnSync(py, ["-c", "import pandas"], { encoding: "utf8" }).status === 0,
    );
    expect(interpreter, "no python3 with pandas: apt-get install python3-pandas").toBeTruthy();
    const run = spawnSync(interpreter!, ["clients/python/tests/pandas_check.py"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", PYTHONDONTWRITEBYTECODE: "1" },
    });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^OK pandas \d+\.\d+/m);
  });
});
