import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "../support/pg";
import { freePort, startServer, type RunningServer } from "../support/server";
import { keysCli, mintKey, ownDatabase, sql, stopProcess, tempDataDir } from "../faults/support";
import { testRedisUrl } from "../../support/test-env";
import { waitFor } from "../../support/wait-for";

// The deployment of deploy/: two instances of the built server on one PostgreSQL and one Redis,
// behind Debian's nginx running deploy/nginx/pmb.conf (its upstream pointed at this test's ports).
// Windows are exact across the instances, a revocation holds on both, an instance stopped under
// traffic fails no request (the balancer routes around it), both instances' metrics are scraped
// (and /metrics is not served through the public front), and the usage journal of an instance
// that never comes back is replayed by the operator: answered = counted.
const NGINX = "/usr/sbin/nginx";
const cleanups: Array<() => unknown> = [];
let database: Awaited<ReturnType<typeof ownDatabase>>;
let env: Record<string, string>;
let instances: RunningServer[] = [];
let dataDirs: string[] = [];
let nginx: ChildProcess;
let front = "";

/** Debian's nginx, installed with apt-get when absent (as scripts/test.mjs installs chromium). */
function ensureNginx(): void {
  if (fs.existsSync(NGINX)) return;
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (apt(["install", "-y", "--no-install-recommends", "nginx-light"]).status !== 0) {
    apt(["update"]);
    apt(["install", "-y", "--no-install-recommends", "nginx-light"]);
  }
  if (!fs.existsSync(NGINX)) throw new Error("nginx is not installed and apt-get could not install nginx-light");
}

/** deploy/nginx/pmb.conf with its upstream on `ports` and its listener on `listen`, in a main config of its own. */
function nginxConfig(dir: string, listen: number, ports: number[]): string {
  const site = fs
    .readFileSync("deploy/nginx/pmb.conf", "utf8")
    .replace(/server app1:3000/, `server 127.0.0.1:${ports[0]}`)
    .replace(/server app2:3000/, `server 127.0.0.1:${ports[1]}`)
    .replace(/listen 80;/, `listen 127.0.0.1:${listen};`);
  expect(site).not.toMatch(/app[12]:3000|listen 80;/);
  fs.writeFileSync(path.join(dir, "pmb.conf"), site);
  const main = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/pmb.conf;
}
`;
  const file = path.join(dir, "nginx.conf");
  fs.writeFileSync(file, main);
  return file;
}

beforeAll(async () => {
  ensureNginx();
  database = await ownDatabase("nginx");
  cleanups.push(() => database.drop());
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl,
    REDIS_PREFIX: `${uniqueName("f_nginx")}:`,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    TRUST_PROXY: "1",
    IP_LIMIT_MINUTE: "1000000",
    // A Redis command may wait on a loaded test machine: this test is about the deployment, not
    // Redis's latency (a command over the bound answers 503, which is not the window's verdict).
    REDIS_COMMAND_TIMEOUT_MS: "3000",
    // Usage stays in the journals until the stop: what a killed instance leaves is all there.
    METERING_FLUSH_MS: "600000",
  };
  dataDirs = [tempDataDir("nginx-a"), tempDataDir("nginx-b")];
  for (const dir of dataDirs) cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  instances = [
    await startServer({ ...env, DATA_DIR: dataDirs[0]! }),
    await startServer({ ...env, DATA_DIR: dataDirs[1]! }),
  ];
  cleanups.unshift(() => Promise.all(instances.map((s) => s.stop("SIGKILL"))));

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-nginx-"));
  fs.chmodSync(dir, 0o755);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const listen = await freePort();
  const conf = nginxConfig(
    dir,
    listen,
    instances.map((s) => s.port),
  );
  const test = spawnSync(NGINX, ["-t", "-p", dir, "-c", conf], { encoding: "utf8" });
  expect(test.status, test.stderr).toBe(0);
  nginx = spawn(NGINX, ["-p", dir, "-c", conf, "-g", "daemon off;"], { stdio: ["ignore", "pipe", "pipe"] });
  cleanups.unshift(() => stopProcess(nginx, "SIGQUIT"));
  front = `http://127.0.0.1:${listen}`;
  await waitFor("nginx listening", async () => (await fetch(`${front}/livez`)).status === 200);
}, 300_000);

afterAll(async () => {
  for (const c of cleanups) await c();
});

const get = (url: string, key?: string) => fetch(url, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
const accessLines = (s: RunningServer) =>
  s
    .output()
    .split("\n")
    .filter((l) => l.includes('"msg":"request"') && l.includes('"route":"/v1/indices"')).length;

describe("two instances behind nginx", () => {
  it("windows are exact across the instances: 20 of 60 admitted at a limit of 20 a minute, both instances serving", async () => {
    const key = mintKey(env, { minute: 20, day: 1000 });
    const before = instances.map(accessLines);
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => get(`${front}/v1/indices`, key).then((r) => r.status)),
    );
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect({ admitted: count(200), refused: count(429) }, `statuses: ${statuses.join(" ")}`).toEqual({
      admitted: 20,
      refused: 40,
    });
    await waitFor("access lines on both instances", () => instances.every((s, i) => accessLines(s) > before[i]!));
  });

  it("a revocation holds on both instances at once", async () => {
    const key = mintKey(env);
    for (const s of instances) expect((await get(`${s.baseUrl}/v1/indices`, key)).status).toBe(200);
    const r = keysCli(["revoke", "--key", key], env);
    expect(r.status, r.stderr).toBe(0);
    for (const s of instances) expect((await get(`${s.baseUrl}/v1/indices`, key)).status).toBe(401);
    const through = await Promise.all(
      Array.from({ length: 10 }, () => get(`${front}/v1/indices`, key).then((res) => res.status)),
    );
    expect(through).toEqual(through.map(() => 401));
  });

  it("both instances' metrics are scraped from each instance; the public front does not serve them", async () => {
    const texts = await Promise.all(instances.map(async (s) => (await get(`${s.baseUrl}/metrics`)).text()));
    const ids = texts.map((t) => /service_instance_id="([0-9a-f-]{36})"/.exec(t)?.[1]);
    expect(ids[0]).toBeTruthy();
    expect(ids[1]).toBeTruthy();
    expect(ids[0]).not.toBe(ids[1]);
    for (const t of texts)
      expect(t).toMatch(/^http_server_request_duration_seconds_count\{[^}]*http_route="\/v1\/indices"/m);
    expect((await get(`${front}/metrics`)).status).toBe(404);
  });

  it("one instance stopped under traffic: the balancer routes around it and no request fails", async () => {
    const key = mintKey(env, { minute: 1_000_000, day: 10_000_000 });
    let stop = false;
    let sent = 0;
    const failures: string[] = [];
    const loop = async () => {
      while (!stop) {
        sent++;
        try {
          const res = await get(`${front}/v1/indices`, key);
          await res.arrayBuffer();
          if (res.status !== 200) failures.push(String(res.status));
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    await waitFor("traffic under way", () => sent > 100);
    const exitCode = await instances[1]!.stop("SIGTERM");
    expect(exitCode).toBe(0);
    const at = sent;
    await waitFor("traffic after the stop", () => sent > at + 200, { timeoutMs: 30_000 });
    stop = true;
    await Promise.all(loops);
    expect(failures).toEqual([]);
  }, 120_000);

  it("an instance killed and never brought back: its usage journal, replayed by the operator, counts every answered request once", async () => {
    const key = mintKey(env, { minute: 1_000_000, day: 10_000_000 });
    const [keyRow] = await sql<{ id: string }>(
      database.url,
      `SELECT id FROM api_keys WHERE status = 'active' ORDER BY "createdAt" DESC LIMIT 1`,
    );
    let answered = 0;
    for (let i = 0; i < 25; i++) if ((await get(`${instances[0]!.baseUrl}/v1/indices`, key)).status === 200) answered++;
    expect(answered).toBe(25);
    await instances[0]!.stop("SIGKILL");
    const counted = async () =>
      Number(
        (
          await sql<{ n: string }>(
            database.url,
            `SELECT coalesce(sum(count), 0) AS n FROM usage_counters WHERE "keyId" = $1`,
            [keyRow!.id],
          )
        )[0]!.n,
      );
    expect(await counted()).toBe(0);
    const replay = () =>
      spawnSync(
        process.execPath,
        [
          "node_modules/tsx/dist/cli.mjs",
          "--conditions=react-server",
          "scripts/usage.ts",
          "replay",
          "--dir",
          dataDirs[0]!,
        ],
        { env: { ...process.env, ...env }, encoding: "utf8" },
      );
    const first = replay();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/replayed \d+ metered request\(s\) from [1-9]\d* usage journal file\(s\)/);
    expect(await counted()).toBe(25);
    // Replayed again (the files are gone; a copy replayed twice would count once): still 25.
    expect(replay().status).toBe(0);
    expect(await counted()).toBe(25);
  }, 120_000);
});
