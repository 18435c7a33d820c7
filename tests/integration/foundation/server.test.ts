import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { newKey } from "../support/api";
import { freePort, startServer } from "../support/server";

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
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing",
        DEMO_MARKET: "0",
        ENGINE_SCHEDULER: "0",
      },
      stdio: "ignore",
    });
    try {
      const res = await waitFor("the server to answer /healthz", () => fetch(`http://127.0.0.1:${port}/healthz`), {
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      expect(res.status).toBe(503);
      const body = await res.json();
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
      env: {
        ...process.env,
        DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nothing",
        PORT: String(await freePort()),
      },
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

describe("WEB_CONCURRENCY", () => {
  it("refuses several workers without a shared database and Redis", () => {
    const r = spawnSync(process.execPath, ["scripts/server.mjs"], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: "1",
        WEB_CONCURRENCY: "2",
        DATABASE_URL: inject("databaseUrl"),
        REDIS_URL: "",
      },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("WEB_CONCURRENCY > 1 needs DATABASE_URL and REDIS_URL");
  });

  it("runs that many instances on one port, each serving keyed requests, and stops them all on SIGTERM", async () => {
    const server = await startServer({
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: inject("redisUrl"),
      REDIS_PREFIX: inject("redisPrefix"),
      WEB_CONCURRENCY: "2",
      DEMO_MARKET: "1",
      ENGINE_SCHEDULER: "0",
    });
    const pid = server.process.pid!;
    try {
      const workers = () =>
        fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
      await waitFor("the primary to report its 2 workers", () => server.output().includes("(2 workers)"), {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      expect(workers()).toHaveLength(2);
      const { key } = await newKey();
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${server.baseUrl}/v1/indices`, { headers: { Authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
      }
      // One scrape, whichever worker takes it, holds every worker's series (gathered by the primary).
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const ids = new Set([...metrics.matchAll(/service_instance_id="([0-9a-f-]{36})"/g)].map((m) => m[1]));
      expect(ids.size).toBe(2);
      expect(metrics).toMatch(/^http_server_request_duration_seconds_count\{[^}]*http_route="\/v1\/indices"/m);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);
});
