import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { call, expectError } from "../support/api";

function keys(...args: string[]) {
  return spawnSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/keys.ts", ...args],
    {
      env: {
        ...process.env,
        DATABASE_URL: inject("databaseUrl"),
        REDIS_URL: inject("redisUrl"),
        REDIS_PREFIX: inject("redisPrefix"),
      },
      encoding: "utf8",
    },
  );
}

describe("npm run keys (operator CLI)", () => {
  it("mint prints only the new key; list shows prefixes, status and limits, never secrets; rotate and revoke take effect", async () => {
    const email = `cli-${randomUUID()}@example.com`;
    const minted = keys("mint", "--email", email, "--limit-minute", "7", "--limit-day", "70");
    expect(minted.status, minted.stderr).toBe(0);
    const key = minted.stdout.trim();
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{43}$/);
    expect(minted.stdout).toBe(`${key}\n`);

    const res = await call("/v1", { key });
    expect(res.body.data.key).toMatchObject({ limitMinute: 7, limitDay: 70 });

    const list = keys("list", "--email", email);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(key.slice(0, 13));
    expect(list.stdout).toContain("active");
    expect(list.stdout).toContain("minute=7");
    expect(list.stdout).not.toContain(key);

    const rotated = keys("rotate", "--key", key);
    expect(rotated.status, rotated.stderr).toBe(0);
    const next = rotated.stdout.trim();
    expect(next).toMatch(/^svc_live_/);
    expectError(await call("/v1", { key }), 401, "invalid_api_key");
    expect((await call("/v1", { key: next, instance: 1 })).status).toBe(200);

    expect(keys("revoke", "--key", next).status).toBe(0);
    expectError(await call("/v1", { key: next, instance: 1 }), 401, "invalid_api_key");
    expect(keys("list", "--email", email).stdout).toMatch(/revoked/);
  });

  it("refuses bad arguments with a message and a non-zero exit", () => {
    const r = keys("mint", "--email", "not-an-email");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("email");
  });
});
