import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { keysCli, mintKey, ownDatabase, sql, tempDataDir } from "./support";
import { waitFor } from "@/tests/support/wait-for";

// Restarts of a server, cleanly (SIGTERM) and not (SIGKILL): nothing a client was told, and
// nothing a user was charged for, is forgotten.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const get = (server: RunningServer, key: string, p = "/v1") =>
  fetch(`${server.baseUrl}${p}`, { headers: { Authorization: `Bearer ${key}` } });

describe("rate-limit windows of the embedded default", () => {
  it("survive SIGKILL and SIGTERM: a key that spent its day limit stays refused after each restart", async () => {
    const dataDir = tempDataDir("rl-restart");
    dirs.push(dataDir);
    const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir, DEMO_MARKET: "0", ENGINE_SCHEDULER: "0" };
    let server = await startServer(env, 120_000);
    try {
      const minted = keysCli(
        ["mint", "--email", "restart@example.com", "--limit-day", "4", "--limit-minute", "100"],
        env,
      );
      expect(minted.status, minted.stderr).toBe(0);
      const key = minted.stdout.trim();
      for (let i = 0; i < 4; i++) expect((await get(server, key)).status).toBe(200);
      expect((await get(server, key)).status).toBe(429);

      for (const signal of ["SIGKILL", "SIGTERM"] as const) {
        await server.stop(signal);
        server = await startServer(env, 120_000);
        const res = await get(server, key);
        expect(res.status, `after ${signal}`).toBe(429);
        expect((await res.json()).error.code).toBe("daily_limit_reached");
        expect(res.headers.get("x-ratelimit-remaining-day")).toBe("0");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(80_000);
      }
    } finally {
      await server.stop();
    }
  }, 400_000);
});

describe("usage", () => {
  it("is not lost when the server is killed (SIGKILL) before its flush, and is not counted twice", async () => {
    const database = await ownDatabase("usage");
    const dataDir = tempDataDir("usage-kill");
    dirs.push(dataDir);
    // No Redis: the windows are journaled too; a flush interval the test never reaches.
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: "",
      DATA_DIR: dataDir,
      DEMO_MARKET: "0",
      ENGINE_SCHEDULER: "0",
      METERING_FLUSH_MS: "600000",
    };
    const key = mintKey(env);
    const counted = async () => {
      const rows = await sql<{ statusClass: string; n: number }>(
        database.url,
        `SELECT "statusClass", sum(count)::int AS n FROM usage_counters GROUP BY 1`,
      );
      return { total: rows.reduce((n, r) => n + r.n, 0), notFound: rows.find((r) => r.statusClass === "4xx")?.n ?? 0 };
    };
    let server = await startServer(env);
    try {
      for (let i = 0; i < 7; i++) expect((await get(server, key, "/v1/downloads")).status).toBe(200);
      expect((await get(server, key, "/v1/indices/NOPE-NOT-A-TICKER/latest")).status).toBe(404);
      await server.stop("SIGKILL");
      expect((await counted()).total).toBe(0); // nothing had been flushed: all of it is in the journal
      const usageFiles = () => fs.readdirSync(path.join(dataDir, "journal")).filter((f) => f.startsWith("usage-"));
      const killed = usageFiles();
      expect(killed.length).toBeGreaterThan(0);

      server = await startServer(env);
      await waitFor("the killed server's usage applied", async () => (await counted()).total >= 8, {
        timeoutMs: 10_000,
        intervalMs: 250,
      });
      expect(await counted()).toEqual({ total: 8, notFound: 1 });
      // The killed server's files are applied and gone; what is left are the live processes' own.
      expect(usageFiles().filter((f) => killed.includes(f))).toEqual([]);
      await server.stop("SIGKILL");

      // A further restart finds nothing left to apply.
      server = await startServer(env);
      // One more request, written to the database by the graceful stop's flush: had the start
      // applied the old files again, the total would have grown by more than this one.
      expect((await get(server, key, "/v1/indices")).status).toBe(200);
      await server.stop("SIGTERM");
      expect((await counted()).total).toBe(9);
    } finally {
      await server.stop();
      await database.drop();
    }
  }, 400_000);
});

describe("the embedded database's lock", () => {
  it("a live holder refuses a second server, which exits non-zero with the reason; a killed holder's lock is free at once, whatever pid the lock file names", async () => {
    const dataDir = tempDataDir("lock");
    dirs.push(dataDir);
    const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir, DEMO_MARKET: "0", ENGINE_SCHEDULER: "0" };
    const first = await startServer(env, 120_000);
    try {
      await expect(startServer(env, 60_000)).rejects.toThrow(
        /exited with 1[\s\S]*embedded database[\s\S]*is open in process/,
      );
    } finally {
      await first.stop("SIGKILL");
    }
    // The pid file names a live process (this one), as after a reboot that reused the pid.
    fs.writeFileSync(path.join(dataDir, "pglite.lock"), String(process.pid));
    const second = await startServer(env, 120_000);
    try {
      expect((await fetch(`${second.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 400_000);
});
