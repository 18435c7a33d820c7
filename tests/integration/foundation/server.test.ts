import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { freePort } from "../support/server";

describe("/healthz", () => {
  it("answers 200 with database reachability and server version on every instance", async () => {
    for (const base of inject("baseUrls")) {
      const res = await fetch(`${base}/healthz`);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.status).toBe("ok");
      expect(body.database.reachable).toBe(true);
      expect(body.database.serverVersion).toMatch(/^15\./);
      expect(typeof body.version).toBe("string");
    }
  });

  it("answers 503 and keeps running when the database cannot be reached", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["scripts/server.mjs"], {
      env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing", DEMO_MARKET: "0", ENGINE_SCHEDULER: "0" },
      stdio: "ignore",
    });
    try {
      let res: Response | null = null;
      for (let i = 0; i < 120 && !res; i++) {
        res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        if (!res) await new Promise((r) => setTimeout(r, 250));
      }
      expect(res?.status).toBe(503);
      const body = await res!.json();
      expect(body.database.reachable).toBe(false);
      expect(body.database.error).toContain("127.0.0.1:1");
      const again = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(again.status).toBe(503);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("npm start", () => {
  it("stops with one clear line naming the host when DATABASE_URL cannot be reached", async () => {
    const child = spawn(process.execPath, ["scripts/start.mjs"], {
      env: { ...process.env, DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing", PORT: String(await freePort()) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("127.0.0.1:1");
  });
});
