import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { baseUrl, newKey } from "../support/api";

// The Python client's own unittest suite (clients/python/tests), run with python3 against the
// running server: a fresh key for the calls and a key allowed one request a minute for the 429s.
describe("Python client (python3 -m unittest)", () => {
  it("passes every test, none skipped", async () => {
    const key = (await newKey()).key;
    const limited = (await newKey({ limitMinute: 1 })).key;
    const run = spawnSync("python3", ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."], {
      cwd: "clients/python",
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", PMB_BASE_URL: baseUrl(), PMB_API_KEY: key, PMB_LIMITED_KEY: limited, PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/^OK$/m);
    expect(output, "a test was skipped").not.toMatch(/skipped/);
    expect(Number(/Ran (\d+) tests/.exec(output)?.[1])).toBeGreaterThanOrEqual(15);
  }, 150_000);
});
