import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { describe, expect, inject, it } from "vitest";
import { waitFor } from "@/tests/support/wait-for";
import { newKey } from "../support/api";
import { freePort, startServer } from "../support/server";
import { ownDatabase, sql } from "../faults/support";
import { uniqueName } from "../support/pg";

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

describe("a port the server cannot have", () => {
  /** Runs the built server (what `npm start` runs after its checks) and waits for it to end. */
  async function runUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    const child = spawn(process.execPath, ["scripts/server.mjs"], {
      env: { ...process.env, NODE_ENV: "production", DEMO_MARKET: "0", ENGINE_SCHEDULER: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearTimeout(timer);
    return { code, output };
  }

  /** The log lines (JSON) saying the server cannot listen. */
  const cannotListen = (output: string) =>
    output
      .split("\n")
      .filter((l) => l.includes("cannot listen"))
      .map((l) => JSON.parse(l) as { level: string; msg: string });

  it.each([1, 2])(
    "a port in use (WEB_CONCURRENCY=%i): exits with status 2 and one line naming the address and why, before any work",
    async (workers) => {
      const database = await ownDatabase("listen");
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
      const port = (holder.address() as net.AddressInfo).port;
      try {
        const { code, output } = await runUntilExit({
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: "127.0.0.1",
          WEB_CONCURRENCY: String(workers),
          ...(workers > 1
            ? { REDIS_URL: inject("redisUrl"), REDIS_PREFIX: `${uniqueName("it_listen")}:` }
            : { REDIS_URL: "" }),
        });
        expect(code, output).toBe(2);
        const lines = cannotListen(output);
        // said once, by the process that tried the port (a cluster's primary, before any worker)
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: "error", ...(workers > 1 ? { instance: "primary" } : {}) });
        expect(lines[0]!.msg).toContain(`127.0.0.1:${port}`);
        expect(lines[0]!.msg).toMatch(/in use.*EADDRINUSE/);
        expect(output).not.toMatch(/ready on|starting another|\\n\s+at /);
        // before any work: no instance recorded (a revocation would wait for it)
        expect(await sql(database.url, "SELECT id FROM service_instances")).toEqual([]);
      } finally {
        holder.close();
        await database.drop();
      }
    },
    120_000,
  );

  it("an address not of this host: exits with status 2 and one line naming it", async () => {
    const database = await ownDatabase("listen_addr");
    try {
      // 192.0.2.1 (TEST-NET-1, RFC 5737) is no address of this machine
      const { code, output } = await runUntilExit({
        DATABASE_URL: database.url,
        PORT: "3999",
        HOST: "192.0.2.1",
        REDIS_URL: "",
      });
      expect(code, output).toBe(2);
      const lines = cannotListen(output);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.msg).toMatch(/192\.0\.2\.1:3999.*EADDRNOTAVAIL/);
    } finally {
      await database.drop();
    }
  }, 120_000);
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
