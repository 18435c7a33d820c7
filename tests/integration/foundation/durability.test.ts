import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../support/server";
import { waitFor } from "@/tests/support/wait-for";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-durable-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** `npm run keys -- list` for the test's account, through the server on `port`. */
function keysList(port: number, env: Record<string, string>) {
  return spawnSync(
    process.execPath,
    [
      "node_modules/tsx/dist/cli.mjs",
      "--conditions=react-server",
      "scripts/keys.ts",
      "list",
      "--email",
      "durable@example.com",
    ],
    {
      env: { ...process.env, ...env, PORT: String(port) },
      encoding: "utf8",
    },
  );
}

describe("the embedded database", () => {
  it("keeps what was committed when the server is killed (SIGKILL) and restarted; operator CLIs go through the running server", async () => {
    const env = {
      DATABASE_URL: "",
      REDIS_URL: "",
      DATA_DIR: dataDir,
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      METERING_FLUSH_MS: "100",
    };
    const first = await startServer(env, 120_000);
    const minted = spawnSync(
      process.execPath,
      [
        "node_modules/tsx/dist/cli.mjs",
        "--conditions=react-server",
        "scripts/keys.ts",
        "mint",
        "--email",
        "durable@example.com",
      ],
      {
        env: { ...process.env, ...env, PORT: String(first.port) },
        encoding: "utf8",
      },
    );
    expect(minted.status, minted.stderr).toBe(0);
    const key = minted.stdout.trim();
    expect((await fetch(`${first.baseUrl}/v1`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    // The usage flush has committed once the running server reports the key as used.
    await waitFor("the usage flush to commit", () => /lastUsed=\d{4}-/.test(keysList(first.port, env).stdout), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await first.stop("SIGKILL");

    const second = await startServer(env, 120_000);
    try {
      const res = await fetch(`${second.baseUrl}/v1`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.data.key.remainingDay).toBeLessThan(body.data.key.limitDay);
      const list = spawnSync(
        process.execPath,
        [
          "node_modules/tsx/dist/cli.mjs",
          "--conditions=react-server",
          "scripts/keys.ts",
          "list",
          "--email",
          "durable@example.com",
        ],
        {
          env: { ...process.env, ...env },
          encoding: "utf8",
        },
      );
      expect(list.status, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/active/);
      expect(list.stdout).toMatch(/lastUsed=\d{4}-/);
    } finally {
      await second.stop();
    }
  });
});
