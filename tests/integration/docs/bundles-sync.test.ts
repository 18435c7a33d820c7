import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleCode } from "@/lib/docs/examples";
import { baseUrl, call, newKey, startupSettled } from "../support/api";

// Rule: the docs' bundle sync (the Python tab, as the downloads page shows it) fetches every month
// as one archive, waits out a 429 for its Retry-After instead of dying, verifies each archive and
// file, saves each month's manifest.json beside its files, and resumes: run again, it fetches nothing.

let dir = "";
beforeAll(() => startupSettled(), 600_000);
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function python(code: string, cwd: string, key: string): Promise<{ status: number; out: string }> {
  const file = path.join(cwd, "sync.py");
  fs.writeFileSync(file, code);
  return new Promise((resolve) => {
    execFile(
      "python3",
      [file],
      {
        cwd,
        env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", PMB_API_KEY: key, PYTHONDONTWRITEBYTECODE: "1" },
        encoding: "utf8",
        timeout: 180_000,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === "number" ? error.code : -1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("the docs' bundle sync (Python)", () => {
  it("fetches every month as one archive past a 429, saves each manifest.json, and resumes without fetching again", async () => {
    const probe = (await newKey()).key;
    const months = (await call("/downloads/manifest.json", { key: probe })).body.months as Array<{
      month: string;
      files: Array<{ name: string }>;
    }>;
    expect(months.length).toBeGreaterThanOrEqual(2);
    // a minute's budget of the latest manifest and all archives but one: the last archive meets a 429
    const { key } = await newKey({ limitMinute: months.length });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bundles-sync-"));
    const code = exampleCode("bundles-sync", baseUrl()).py;

    const first = await python(code, dir, key);
    expect(first.status, first.out).toBe(0);
    expect(first.out).toMatch(/HTTP 429: waiting \d+ s/);
    for (const m of months) {
      expect(first.out).toContain(`fetched ${m.month}`);
      const folder = path.join(dir, "bundles", m.month);
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, "manifest.json"), "utf8")) as {
        month: string;
        files: Array<{ name: string }>;
      };
      expect(manifest.month).toBe(m.month);
      expect(fs.readdirSync(folder).sort()).toEqual(["manifest.json", ...m.files.map((f) => f.name)].sort());
    }
    expect(first.out).toContain(`${months.length} months verified in bundles/`);

    // Resume: everything verified before is skipped (one request, the latest manifest).
    const again = await python(code, dir, (await newKey()).key);
    expect(again.status, again.out).toBe(0);
    expect(again.out).not.toContain("fetched");
    expect(again.out).toContain(`${months.length} months verified in bundles/`);

    // A month whose archive went missing half-way (its mark gone) is fetched again, alone.
    fs.rmSync(path.join(dir, "bundles", `.${months[0]!.month}.sha256`));
    fs.rmSync(path.join(dir, "bundles", months[0]!.month), { recursive: true });
    const resumed = await python(code, dir, (await newKey()).key);
    expect(resumed.status, resumed.out).toBe(0);
    expect(resumed.out.match(/fetched /g)).toHaveLength(1);
    expect(resumed.out).toContain(`fetched ${months[0]!.month}`);
  }, 240_000);
});
