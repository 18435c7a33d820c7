import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { chromium } from "@playwright/test";
import { createDatabase, dropDatabase, uniqueName } from "../tests/integration/support/pg";
import { tempDataDir } from "../tests/integration/faults/support";
import { deleteRedisPrefix } from "../tests/integration/support/redis";
import { startServer } from "../tests/integration/support/server";
import { benchSettings } from "./lib/bench-settings";

// `npm run bench`: the production build with the demo market, many keys so limits never trip,
// in three setups one after another: the embedded database with the in-process limiter, a fresh
// PostgreSQL database with the in-process limiter, and the same database with the Redis limiter
// (the configuration of several instances). Prints figures and, at the end, each setup's ratios
// to a bare node:http server sending the same bytes in the same run; it is not a test.
// BENCH_SETUPS=embedded,postgres,redis chooses setups (all three by default).
// The load generator is wrk when /usr/bin/wrk exists (a separate native process), else
// autocannon inside this process (BENCH_GENERATOR=autocannon chooses it). BENCH_PIN=1 pins the
// server to CPU 0 and wrk to CPU 1. BENCH_ONLY=latest,gzip runs only the rows whose label
// contains one of those words (the floor rows always run: the targets are relative to them).
// The floor is a bare node:http server sending the very bytes of an index latest response; its
// ceiling row is the same handler in a process that runs this build's Next (BESIDE_NEXT), so what
// a row loses splits into what one process with Next costs and what the API's own work costs.
// BENCH_SECONDS sets the length of each measured run (8 s by default); BENCH_ROUNDS=n measures
// every row n times, taking turns, and reports the median round.
const CONNECTIONS = 32;
/** Keys the load is spread over (each request takes the next). */
const KEYS = 100;
/** The steady load of the latency budget: requests a second, spread over every key. */
const STEADY_RATE = 1000;
const FLOOR = "bare node:http, latest's bytes";
/** The floor as it was before the head was sent too: the body, Content-Type and Content-Length. */
const BODY_ONLY = "bare node:http, body only";
/** The floors of the 90-day history rows: node:http sending that answer's bytes and head, plain and gzip. */
const HISTORY_BARE = "bare node:http, history's bytes";
const HISTORY_GZIP_BARE = "bare node:http, history's gzip bytes";
/**
 * The ceiling of the one-process design: the floor's handler (latest's bytes from one Buffer) in a
 * process that runs this build's Next and has served pages through it, as the product's server
 * does. What it loses against the floor is Next's share; the rest of a row's loss is the API's work.
 */
const BESIDE_NEXT = "the same, beside Next";
const HISTORY_BESIDE_NEXT = "history's bytes, beside Next";
const HISTORY_GZIP_BESIDE_NEXT = "history's gzip, beside Next";
/**
 * The peer: the same handler served through Next's router (the app/v1 route files, which call the
 * same `withKey` wrapper), in a process of its own on the setup's database, so each row's gain
 * from the node:http front is measured in the same run. Needs a shared database: not in the
 * embedded setup, whose data directory only the server may open.
 */
const PEER = "peer: through Next's router";
const settings = benchSettings;
const SECONDS = settings.seconds(8);
const WRK = "/usr/bin/wrk";
const TASKSET = "/usr/bin/taskset";
const useWrk = !settings.autocannon && fs.existsSync(WRK);
const pin = settings.pin && useWrk && fs.existsSync(TASKSET);

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  total: number;
  /** Server process CPU time per request (user + system), when /proc is readable. */
  cpuMs: number | null;
  /** Redis server CPU time per request (INFO cpu), when Redis answers. */
  redisMs: number | null;
}

/** used_cpu_user + used_cpu_sys of the Redis server, in ms, or null. */
function redisCpuMs(): number | null {
  const out = spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", "6379", "INFO", "cpu"], { encoding: "utf8" });
  if (out.status !== 0) return null;
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(out.stdout)?.[1] ?? NaN);
  const total = (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
  return Number.isFinite(total) ? total : null;
}

/** utime + stime of a process in ms (Linux /proc), or null. */
/** CPU time of the server process and its live children (cluster workers), in ms. */
function cpuTimeMs(pid: number | undefined): number | null {
  try {
    const own = (p: number | string) => {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
      return Number(fields[11]) + Number(fields[12]);
    };
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    const ticks = own(pid!) + children.reduce((sum, c) => sum + own(c), 0);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function wrkScript(keys: string[], gzip: boolean): string {
  const file = path.join(os.tmpdir(), `pmb-bench-${process.pid}${gzip ? "-gzip" : ""}.lua`);
  fs.writeFileSync(
    file,
    `local keys = {${keys.map((k) => JSON.stringify(k)).join(",")}}
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. keys[(i % #keys) + 1]${gzip ? ', ["Accept-Encoding"] = "gzip"' : ""} })
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("\\nBENCH {\\"total\\":%d,\\"us\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"status\\":%d,\\"socket\\":%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`,
  );
  return file;
}

/**
 * Runs a load generator (pinned to CPU 1 with BENCH_PIN) and returns the JSON of its output line
 * that starts with `prefix`.
 */
async function loadSummary<T>(program: string, args: string[], prefix: string): Promise<T> {
  const [cmd, argv] = pin ? [TASKSET, ["-c", "1", program, ...args]] : [program, args];
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`${path.basename(program)} exited with ${code}: ${text}`)),
    );
  });
  const line = out.split("\n").find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`${path.basename(program)} printed no summary:\n${out}`);
  return JSON.parse(line.slice(prefix.length)) as T;
}

async function runWrk(
  url: string,
  script: string,
  connections: number,
  seconds: number,
): Promise<Omit<Figures, "cpuMs" | "redisMs">> {
  const threads = pin || connections < 2 ? 1 : 2;
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "-s", script, url];
  const r = await loadSummary<{
    total: number;
    us: number;
    p50: number;
    p99: number;
    status: number;
    socket: number;
  }>(WRK, args, "BENCH ");
  return {
    rps: r.total / (r.us / 1e6),
    p50: r.p50 / 1000,
    p99: r.p99 / 1000,
    non2xx: r.status + r.socket,
    total: r.total,
  };
}

async function runAutocannon(
  url: string,
  keys: string[],
  connections: number,
  seconds: number,
  gzip: boolean,
): Promise<Omit<Figures, "cpuMs" | "redisMs">> {
  let i = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: {
            ...req.headers,
            authorization: `Bearer ${keys[i++ % keys.length]}`,
            ...(gzip ? { "accept-encoding": "gzip" } : {}),
          },
        }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/**
 * `url` at a steady `rate` a second for `seconds`, open loop (scripts/lib/steady-load.mjs), in a
 * process of its own, pinned to the CPU beside the server's with BENCH_PIN.
 */
async function runSteady(url: string, keys: string[], rate: number, seconds: number) {
  const keysFile = path.join(os.tmpdir(), `pmb-bench-keys-${randomUUID()}.json`);
  fs.writeFileSync(keysFile, JSON.stringify(keys));
  try {
    const args = ["scripts/lib/steady-load.mjs", url, String(rate), String(seconds), keysFile];
    const r = await loadSummary<{ sent: number; non2xx: number; errors: number; p50: number; p99: number }>(
      process.execPath,
      args,
      "STEADY ",
    );
    return { rps: r.sent / seconds, p50: r.p50, p99: r.p99, non2xx: r.non2xx + r.errors };
  } finally {
    fs.rmSync(keysFile, { force: true });
  }
}

async function fcp(url: string, runs = 5): Promise<number[]> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  const out: number[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const page = await browser.newPage();
      await page.goto(url, { waitUntil: "load" });
      const v = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const hit = performance.getEntriesByName("first-contentful-paint")[0];
            if (hit) return resolve(hit.startTime);
            new PerformanceObserver((list) => resolve(list.getEntries()[0]!.startTime)).observe({
              type: "paint",
              buffered: true,
            });
          }),
      );
      out.push(v);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return out;
}

/**
 * A node:http server in its own process answering every request with the very bytes of `url`'s
 * response from one Buffer: the cost of moving that response on this machine, nothing else. With
 * `head`, the response's own head too (every header the API sends, in its order; Node adds Date
 * and Connection as it does for the API), so the two send the same bytes; without, the body with
 * Content-Type and Content-Length only. With `gzip`, the bytes a gzip client gets, as sent.
 * Pinned to the server's CPU when BENCH_PIN=1. With `besideNext` (the server's environment), the
 * process first prepares this build's Next and has it serve two pages (BESIDE_NEXT); it answers
 * under /v1/ with the bytes and hands everything else to Next.
 */
async function bareServer(url: string, key: string, head = true, gzip = false, besideNext?: Record<string, string>) {
  const res = await rawGet(url, { authorization: `Bearer ${key}`, "accept-encoding": gzip ? "gzip" : "identity" });
  const body = res.body;
  const file = path.join(os.tmpdir(), `pmb-bench-body-${randomUUID()}`);
  fs.writeFileSync(file, body);
  const bytes = body.byteLength;
  const own = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
  const headers = head
    ? res.headers.filter(([name]) => !own.has(name.toLowerCase())).flat()
    : ["content-type", "application/json; charset=utf-8", "content-length", String(body.length)];
  const listen = besideNext
    ? `const app = require("next")({ dev: false, dir: process.cwd() });
const handle = app.getRequestHandler();
app.prepare().then(() => http.createServer((req, res) => (req.url.startsWith("/v1/") ? answer(req, res) : handle(req, res)))
  .listen(0, "127.0.0.1", async function () {
    const port = this.address().port;
    for (const page of ["/docs", "/terms"]) await (await fetch("http://127.0.0.1:" + port + page)).arrayBuffer();
    console.log("PORT " + port);
  }));`
    : `http.createServer(answer).listen(0, "127.0.0.1", function () { console.log("PORT " + this.address().port); });`;
  const code = `const http = require("node:http");
const body = require("node:fs").readFileSync(${JSON.stringify(file)});
const head = ${JSON.stringify(headers)};
const answer = (req, res) => { res.writeHead(200, head); res.end(body); };
${listen}`;
  const env: NodeJS.ProcessEnv = besideNext
    ? { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...besideNext }
    : process.env;
  const { child, port } = await serveFromCode(code, env, "bare server");
  if (pin) spawnSync(TASKSET, ["-a", "-p", "-c", "0", String(child.pid)], { stdio: "ignore" });
  child.once("exit", () => fs.rmSync(file, { force: true }));
  return { url: `http://127.0.0.1:${port}${besideNext ? "/v1/" : "/"}`, bytes, process: child };
}

/**
 * A process of its own that hands every request to this build's Next (no node:http front), on the
 * setup's database and Redis, with a data directory of its own and no scheduler; it serves two
 * pages and one keyed request before it is measured.
 */
async function peerServer(env: Record<string, string>, pathname: string, key: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-bench-peer-"));
  const code = `const http = require("node:http");
const app = require("next")({ dev: false, dir: process.cwd() });
const handle = app.getRequestHandler();
app.prepare().then(() => http.createServer((req, res) => handle(req, res)).listen(0, "127.0.0.1", async function () {
  const port = this.address().port;
  for (const page of ["/docs", "/terms"]) await (await fetch("http://127.0.0.1:" + port + page)).arrayBuffer();
  console.log("PORT " + port);
}));`;
  const childEnv = {
    ...process.env,
    ...env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATA_DIR: dataDir,
    ENGINE_SCHEDULER: "false",
  } as NodeJS.ProcessEnv;
  const { child, port } = await serveFromCode(code, childEnv, "peer server");
  const url = `http://127.0.0.1:${port}${pathname}`;
  // Its first answers may be 503 while its Redis connection opens: up to 30 s of them.
  let first = await rawGet(url, { authorization: `Bearer ${key}` });
  for (let tries = 0; tries < 30 && !first.body.toString().startsWith('{"data"'); tries++) {
    await new Promise((r) => setTimeout(r, 1000));
    first = await rawGet(url, { authorization: `Bearer ${key}` });
  }
  if (!first.body.toString().startsWith('{"data"'))
    throw new Error(`the peer answered ${first.body.toString().slice(0, 200)}`);
  if (pin) spawnSync(TASKSET, ["-a", "-p", "-c", "0", String(child.pid)], { stdio: "ignore" });
  child.once("exit", () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { url, bytes: first.body.byteLength, process: child };
}

/** Runs `code` in a node process of its own and waits for the `PORT n` line it prints once it listens. */
async function serveFromCode(code: string, env: NodeJS.ProcessEnv, what: string) {
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"], env });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^PORT (\d+)$/m.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (c) => reject(new Error(`${what} exited with ${c}`)));
  });
  return { child, port };
}

/** A GET as it comes off the wire: the body undecoded, the head's fields in their order. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: Array<[string, string]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const raw = res.rawHeaders;
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
          resolve({ headers: pairs, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/** Waits until a server (with its children) has used under 5 % of a core for two seconds in a row. */
async function untilIdle(pid: number | undefined): Promise<void> {
  for (let waited = 0, prev = cpuTimeMs(pid); waited < 300; waited++) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = cpuTimeMs(pid);
    if (prev === null || now === null || now - prev < 100) break;
    prev = now;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (v: number) => (v < 10 ? v.toFixed(1) : v.toFixed(0));
const isoSeconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
const loadAverage = () =>
  os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(" ");

type SetupName = "embedded" | "postgres" | "redis";

interface Setup {
  name: SetupName;
  label: string;
  /** the rows this setup runs besides the floor: the latest ones, or every row */
  rows: "latest" | "all";
  /** the ratio each latest row must reach */
  target: number;
}

const SETUPS: readonly Setup[] = [
  { name: "embedded", label: "embedded database, in-process limiter", rows: "latest", target: 0.45 },
  { name: "postgres", label: "PostgreSQL, in-process limiter", rows: "all", target: 0.45 },
  { name: "redis", label: "PostgreSQL, Redis limiter", rows: "latest", target: 0.25 },
];

/** One setup's ratios to its floors, for the summary. */
type Ratios = Array<{ what: string; ratio: number; target: number | null }>;

/** Mints a key in an embedded server's database through its loopback operator endpoint (as `npm run keys -- mint` does). */
async function mintThroughOperator(dataDir: string, email: string): Promise<string> {
  const token = fs.readFileSync(path.join(dataDir, "operator-token"), "utf8").trim();
  const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, "server.json"), "utf8")) as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}/operator`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Operator-Token": token },
    body: JSON.stringify({
      command: "keys.mint",
      args: { email, limitMinute: 10_000_000, limitDay: 10_000_000, name: "bench" },
    }),
  });
  const out = (await res.json()) as { stdout: string; stderr: string };
  const key = out.stdout.trim();
  if (!res.ok || !/^svc_live_\S+$/.test(key))
    throw new Error(`minting a key through the operator endpoint failed (${res.status}): ${out.stderr}`);
  return key;
}

async function main() {
  const build = spawnSync(process.execPath, ["-e", "import('./scripts/lib/build.mjs').then(m => m.ensureBuild())"], {
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("build failed");
  const chosen = SETUPS.filter((s) => settings.setups.includes(s.name));
  if (chosen.length === 0) throw new Error(`BENCH_SETUPS names none of ${SETUPS.map((s) => s.name).join(", ")}`);
  const name = uniqueName("pmb_bench");
  const needsPostgres = chosen.some((s) => s.name !== "embedded");
  const url = needsPostgres ? await createDatabase(name) : "";
  const prefix = `${name}:`;
  // Each server journals its windows and usage into a DATA_DIR of its own, deleted at the end: a
  // run's millions of admissions are neither replayed by the next run nor left in `.data` for
  // `npm start` to replay.
  const dataDirs: string[] = [];
  const dataDir = () => {
    const dir = tempDataDir("bench-data");
    dataDirs.push(dir);
    return dir;
  };
  const summary: Array<{ setup: Setup; ratios: Ratios }> = [];
  try {
    if (needsPostgres) {
      const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], {
        env: { ...process.env, DATABASE_URL: url },
        encoding: "utf8",
      });
      if (migrate.status !== 0) throw new Error(migrate.stderr);
      // The PostgreSQL setups share the database and its keys: the second server continues
      // where the first left (no second backfill).
      Object.assign(process.env, { DATABASE_URL: url, REDIS_URL: "", REDIS_PREFIX: prefix });
    }
    let postgresKeys: string[] | null = null;
    for (const setup of chosen) {
      const dir = dataDir();
      const env = {
        DATABASE_URL: setup.name === "embedded" ? "" : url,
        REDIS_URL: setup.name === "redis" ? "redis://127.0.0.1:6379" : "",
        REDIS_PREFIX: prefix,
        DEMO_MARKET: "1",
        ENGINE_SCHEDULER: "0",
        IP_LIMIT_MINUTE: "100000000",
        AUTH_SECRET: randomUUID(),
        DATA_DIR: dir,
      };
      const mint = async (): Promise<string[]> => {
        const keys: string[] = [];
        if (setup.name === "embedded") {
          for (let i = 0; i < KEYS; i++)
            keys.push(await mintThroughOperator(dir, `bench-${i}-${randomUUID()}@example.com`));
          return keys;
        }
        if (postgresKeys) return postgresKeys;
        const { ensureUser, mintKey } = await import("@/lib/keys/manage-keys");
        const prisma = await (await import("@/lib/root")).root().db();
        for (let i = 0; i < KEYS; i++) {
          const user = await ensureUser(prisma, `bench-${i}-${randomUUID()}@example.com`);
          keys.push((await mintKey(prisma, user, { limitMinute: 10_000_000, limitDay: 100_000_000 })).key);
        }
        postgresKeys = keys;
        return keys;
      };
      summary.push({ setup, ratios: await runSetup(setup, env, mint) });
    }
  } finally {
    if (needsPostgres) await dropDatabase(name);
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    // The run's rate-limit logs and cache keys: gone with its database, not left to expire.
    await deleteRedisPrefix("redis://127.0.0.1:6379", prefix);
  }
  console.log(
    `\nratios to a bare node:http server sending the same body and headers, in the same run (load average now ${loadAverage()}):`,
  );
  for (const { setup, ratios } of summary) {
    for (const r of ratios) {
      const verdict = r.target === null ? "" : ` (target >= ${r.target})${r.ratio >= r.target ? "" : " BELOW TARGET"}`;
      console.log(`  ${setup.label}: ${r.what} ${r.ratio.toFixed(2)}${verdict}`);
    }
  }
}

async function runSetup(setup: Setup, env: Record<string, string>, mint: () => Promise<string[]>): Promise<Ratios> {
  // BENCH_PROFILE=dir: the server writes a V8 CPU profile there when it stops (open it in
  // Chrome DevTools or speedscope); boot and backfill are in it too, so run long rows.
  const profile = settings.profile;
  console.log(`\n== ${setup.label} ==`);
  const server = await startServer(
    env,
    600_000,
    200,
    profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profile)}`] : [],
  );
  let script: string | null = null;
  let gzipScript: string | null = null;
  const bareProcesses: ChildProcess[] = [];
  const ratios: Ratios = [];
  try {
    if (pin) spawnSync(TASKSET, ["-a", "-p", "-c", "0", String(server.process.pid)], { stdio: "ignore" });
    const keys = await mint();
    const scripts = useWrk ? { plain: wrkScript(keys, false), gzip: wrkScript(keys, true) } : null;
    script = scripts?.plain ?? null;
    gzipScript = scripts?.gzip ?? null;
    const load = async (
      target: string,
      connections: number,
      seconds = SECONDS,
      gzip = false,
      pid = server.process.pid,
    ): Promise<Figures> => {
      const wrkScriptFile = scripts ? (gzip ? scripts.gzip : scripts.plain) : null;
      const before = cpuTimeMs(pid);
      const redisBefore = redisCpuMs();
      const r = wrkScriptFile
        ? await runWrk(target, wrkScriptFile, connections, seconds)
        : await runAutocannon(target, keys, connections, seconds, gzip);
      const after = cpuTimeMs(pid);
      const redisAfter = redisCpuMs();
      const perRequest = (a: number | null, b: number | null) =>
        a !== null && b !== null && r.total > 0 ? (b - a) / r.total : null;
      return { ...r, cpuMs: perRequest(before, after), redisMs: perRequest(redisBefore, redisAfter) };
    };
    // With WEB_CONCURRENCY > 1 one worker backfills while another already answers: wait for data.
    // A 503 while the backfill holds the CPU (a Redis command timing out) is "not yet", too.
    const readCatalog = async () => {
      const res = await fetch(`${server.baseUrl}/v1/indices`, { headers: { authorization: `Bearer ${keys[0]}` } });
      const body = await res.json();
      if (res.status !== 200 && res.status !== 503)
        throw new Error(`GET /v1/indices answered ${res.status} ${JSON.stringify(body)}`);
      return body as { data?: { indices: Array<{ ticker: string; publicStatus: string }> } };
    };
    let catalog = await readCatalog();
    for (let waited = 0; !catalog.data?.indices.some((i) => i.publicStatus === "active") && waited < 600; waited++) {
      await new Promise((r) => setTimeout(r, 1000));
      catalog = await readCatalog();
    }
    if (!catalog.data) throw new Error("GET /v1/indices never answered with data");
    // Boot goes on after the data is there (monthly bundles are built next): measure once the
    // server has been idle, under 5% of a core, for two seconds in a row.
    await untilIdle(server.process.pid);
    const vol = await (
      await fetch(`${server.baseUrl}/v1/volatility`, { headers: { authorization: `Bearer ${keys[0]}` } })
    ).json();
    const index = catalog.data.indices.find((i) => i.publicStatus === "active")!.ticker;
    const series = vol.data.series[0].ticker as string;
    const bodyBytes = async (p: string) =>
      (
        await (
          await fetch(`${server.baseUrl}${p}`, {
            headers: { authorization: `Bearer ${keys[0]}`, "accept-encoding": "identity" },
          })
        ).arrayBuffer()
      ).byteLength;
    const latestBytes = {
      index: await bodyBytes(`/v1/indices/${index}/latest`),
      volatility: await bodyBytes(`/v1/volatility/${series}/latest`),
    };
    // 90 days of hourly levels: start and end spanning the trailing window (start 10 minutes
    // inside it, so the window is not clamped while the bench runs).
    const now = Date.now();
    const span = `start=${isoSeconds(new Date(now - 90 * 86_400_000 + 600_000))}&end=${isoSeconds(new Date(now))}`;
    type Bare =
      "latest" | "body" | "next" | "peer" | "5000" | "history" | "history-next" | "history-gzip" | "history-gzip-next";
    const targets: Array<{ label: string; path: string; single?: boolean; gzip?: boolean; bare?: Bare }> = [
      // The floor: node:http in its own process sending the very bytes of an index latest response.
      { label: FLOOR, path: "/", bare: "latest" },
      { label: BESIDE_NEXT, path: "/", bare: "next" },
      ...(env.DATABASE_URL ? [{ label: PEER, path: "/", bare: "peer" as const }] : []),
      { label: BODY_ONLY, path: "/", bare: "body" },
      { label: "index latest", path: `/v1/indices/${index}/latest` },
      { label: "index history 90d 1h", path: `/v1/indices/${index}/history?interval=1h&${span}`, single: true },
      { label: HISTORY_BARE, path: "/", bare: "history" },
      { label: HISTORY_BESIDE_NEXT, path: "/", bare: "history-next" },
      { label: "volatility latest", path: `/v1/volatility/${series}/latest` },
      { label: "volatility latest, gzip", path: `/v1/volatility/${series}/latest`, gzip: true },
      { label: "volatility history 5000", path: `/v1/volatility/${series}/history?limit=5000`, single: true },
      // The machine's own floor for a body that size: node:http sending the same number of bytes
      // from one Buffer, no framework, no key, no Redis.
      { label: "bare node:http, 5000's bytes", path: "/", bare: "5000" },
      // What browsers and most HTTP libraries send: the body compressed, its reused part once.
      { label: "index history 90d 1h, gzip", path: `/v1/indices/${index}/history?interval=1h&${span}`, gzip: true },
      { label: HISTORY_GZIP_BARE, path: "/", bare: "history-gzip", gzip: true },
      { label: HISTORY_GZIP_BESIDE_NEXT, path: "/", bare: "history-gzip-next", gzip: true },
      { label: "volatility history 5000, gzip", path: `/v1/volatility/${series}/history?limit=5000`, gzip: true },
    ];
    const only = settings.only;
    if (setup.rows === "latest") {
      const keep = targets.filter(
        (t) =>
          t.label === FLOOR ||
          t.label === BESIDE_NEXT ||
          t.label === PEER ||
          t.label === "index latest" ||
          t.label === "volatility latest",
      );
      targets.splice(0, targets.length, ...keep);
    } else if (only.length > 0) {
      // The rows asked for, the latest floors, and the history floors when a history row runs.
      const history = targets.some((t) => t.label.includes("90d") && only.some((w) => t.label.includes(w)));
      const keep = targets.filter(
        (t) =>
          t.label === FLOOR ||
          t.label === BODY_ONLY ||
          t.label === BESIDE_NEXT ||
          t.label === PEER ||
          (history && t.bare?.startsWith("history")) ||
          only.some((w) => t.label.includes(w)),
      );
      targets.splice(0, targets.length, ...keep);
    }
    const workers = settings.workers;
    const generator = useWrk
      ? `wrk (${WRK}, separate process${pin ? "; server pinned to CPU 0, wrk to CPU 1" : ", unpinned"})`
      : "autocannon (in the bench's own process)";
    const mode = workers > 1 ? `${workers} workers (WEB_CONCURRENCY)` : "one process";
    console.log(`\ngenerator: ${generator}; server: ${mode}`);
    console.log(
      `load: ${SECONDS} s per run, ${keys.length} keys, ${setup.label}, production build, ${os.cpus().length} CPUs, load average ${loadAverage()}`,
    );
    console.log(
      `bodies: index latest ${latestBytes.index} bytes, volatility latest ${latestBytes.volatility} bytes (the floor sends index latest's)`,
    );
    console.log(
      "endpoint".padEnd(32),
      "conns".padStart(5),
      "req/s".padStart(8),
      "p50 ms".padStart(8),
      "p99 ms".padStart(8),
      "non-2xx".padStart(8),
      "CPU ms/req".padStart(11),
      "Redis ms/req".padStart(13),
    );
    const figures: Record<string, Figures> = {};
    const single: Record<string, Figures> = {};
    const row = (label: string, c: number, r: Figures) =>
      console.log(
        label.padEnd(32),
        String(c).padStart(5),
        r.rps.toFixed(0).padStart(8),
        ms(r.p50).padStart(8),
        ms(r.p99).padStart(8),
        String(r.non2xx).padStart(8),
        (r.cpuMs === null ? "-" : r.cpuMs.toFixed(3)).padStart(11),
        (r.redisMs === null ? "-" : r.redisMs.toFixed(3)).padStart(13),
      );
    // The floors (and ceilings) the chosen rows need, each a process of its own.
    const latestUrl = `${server.baseUrl}/v1/indices/${index}/latest`;
    const historyUrl = `${server.baseUrl}/v1/indices/${index}/history?interval=1h&${span}`;
    const bareOf: Record<Bare, () => ReturnType<typeof bareServer>> = {
      latest: () => bareServer(latestUrl, keys[0]!),
      body: () => bareServer(latestUrl, keys[0]!, false),
      next: () => bareServer(latestUrl, keys[0]!, true, false, env),
      peer: () => peerServer(env, `/v1/indices/${index}/latest`, keys[0]!),
      "5000": () => bareServer(`${server.baseUrl}/v1/volatility/${series}/history?limit=5000`, keys[0]!),
      history: () => bareServer(historyUrl, keys[0]!),
      "history-next": () => bareServer(historyUrl, keys[0]!, true, false, env),
      "history-gzip": () => bareServer(historyUrl, keys[0]!, true, true),
      "history-gzip-next": () => bareServer(historyUrl, keys[0]!, true, true, env),
    };
    const bares: Partial<Record<Bare, Awaited<ReturnType<typeof bareServer>>>> = {};
    for (const t of targets) {
      if (!t.bare) continue;
      const b = await bareOf[t.bare]();
      bares[t.bare] = b;
      bareProcesses.push(b.process);
    }
    // BENCH_ROUNDS=n: every row n times, the rows taking turns, so each round's ratios compare
    // runs seconds apart; on a machine whose neighbours take CPU, the median ratio is steadier
    // than any one run. The figures shown after the table are the median round's.
    const rounds = settings.rounds;
    const perRound: Array<Record<string, Figures>> = [];
    for (let round = 0; round < rounds; round++) {
      const these: Record<string, Figures> = {};
      perRound.push(these);
      if (rounds > 1) console.log(`round ${round + 1} of ${rounds}`);
      for (const t of targets) {
        const own = t.bare ? bares[t.bare]! : null;
        const target = own ? own.url : `${server.baseUrl}${t.path}`;
        const pid = own ? own.process.pid : server.process.pid;
        if (round === 0) await load(target, CONNECTIONS, 3, t.gzip, pid); // warm-up is not counted
        const r = await load(target, CONNECTIONS, SECONDS, t.gzip, pid);
        these[t.label] = r;
        row(t.label, CONNECTIONS, r);
        if (t.single && round === 0) {
          const s = await load(target, 1, SECONDS, t.gzip, pid);
          single[t.label] = s;
          row(`${t.label} (1 conn)`, 1, s);
        }
      }
    }
    // The latency budget: index latest at a steady STEADY_RATE requests a second over every key,
    // open loop (scripts/lib/steady-load.mjs: a request is due at its time whatever came back, its
    // latency counted from then; neither wrk nor autocannon's overallRate, which sends each
    // second's share in a burst, holds a rate), with the server alone on its CPU: the reference
    // processes are done, and left running (pinned beside it with BENCH_PIN) they took from it.
    if (targets.some((t) => t.label === "index latest")) {
      const running = bareProcesses.filter((p) => p.exitCode === null && p.signalCode === null);
      await Promise.all(running.map((p) => new Promise((exited) => p.once("exit", exited).kill())));
      // One run a round (BENCH_ROUNDS): the budget is judged on the median round's p99.
      const p99s: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const steady = await runSteady(latestUrl, keys, STEADY_RATE, SECONDS);
        p99s.push(steady.p99);
        console.log(
          `index latest, steady ${STEADY_RATE}/s`.padEnd(32),
          "open".padStart(5),
          steady.rps.toFixed(0).padStart(8),
          ms(steady.p50).padStart(8),
          ms(steady.p99).padStart(8),
          String(steady.non2xx).padStart(8),
        );
      }
      ratios.push({
        what: `index latest p99 in ms at a steady ${STEADY_RATE} requests a second over ${keys.length} keys${rounds > 1 ? `, the median of ${rounds} runs` : ""} (budget < 25)`,
        ratio: median(p99s),
        target: null,
      });
    }
    /** A row's share of its own round's floor, in %, one per round. */
    const shares = (label: string, of = FLOOR) =>
      perRound.map((r) => (r[label] && r[of] ? (r[label].rps / r[of].rps) * 100 : NaN)).filter(Number.isFinite);
    // Each row's figures from the round where its share of the floor is the median one.
    for (const t of targets) {
      const s = shares(t.label);
      const at = s.length ? s.indexOf(median(s)) : 0;
      const r = perRound[at]?.[t.label];
      if (r) figures[t.label] = r;
    }
    console.log(
      `\ntargets (load average now ${loadAverage()}; ${setup.label}${rounds > 1 ? `; median of ${rounds} rounds, each against its own round's floor` : ""}):`,
    );
    const ceiling = shares(BESIDE_NEXT);
    if (ceiling.length) {
      ratios.push({
        what: "the floor's handler beside Next (no target: the ceiling of one process with Next)",
        ratio: median(ceiling) / 100,
        target: null,
      });
      console.log(
        `  ceiling of one process with Next: the floor's handler beside Next answers ${median(ceiling).toFixed(0)}% of the floor's throughput, server CPU ${figures[BESIDE_NEXT]?.cpuMs?.toFixed(3) ?? "-"} ms/request`,
      );
    }
    const peer = shares(PEER);
    if (peer.length) {
      ratios.push({
        what: "the peer: index latest through Next's router (no target)",
        ratio: median(peer) / 100,
        target: null,
      });
      const gain = shares("index latest", PEER);
      if (gain.length) ratios.push({ what: "index latest over the peer", ratio: median(gain) / 100, target: 8 });
      console.log(
        `  peer: index latest through Next's router answers ${median(peer).toFixed(0)}% of the floor's throughput; the node:http front answers ${(median(gain) / 100).toFixed(1)} times the peer's (target >= 8)`,
      );
    }
    for (const l of ["index latest", "volatility latest"]) {
      const f = figures[l];
      if (!f) continue;
      const s = shares(l);
      const spread = rounds > 1 ? ` (rounds: ${s.map((v) => v.toFixed(0)).join(", ")})` : "";
      const bodyOnly = shares(l, BODY_ONLY);
      const against = bodyOnly.length ? ` (${median(bodyOnly).toFixed(0)}% of the body-only row)` : "";
      ratios.push({ what: l, ratio: median(s) / 100, target: setup.target });
      console.log(
        `  ${l}: ${median(s).toFixed(0)}% of the bare node:http row's throughput${spread}${against} (target >= ${setup.target * 100}%), p99 ${ms(f.p99)} ms at ${CONNECTIONS} connections (target < 50), server CPU ${f.cpuMs?.toFixed(3) ?? "-"} ms/request`,
      );
    }
    const h = "index history 90d 1h";
    const hist = figures[h];
    const histSingle = single[h];
    if (hist && histSingle) {
      console.log(
        `  ${h}: p50 ${ms(hist.p50)} ms at ${CONNECTIONS} connections, p99 ${ms(hist.p99)} ms (target p50 < 30)`,
      );
      console.log(
        `  ${h}, latency of a single request (1 connection): p50 ${ms(histSingle.p50)} ms, p99 ${ms(histSingle.p99)} ms (target p50 < 30)`,
      );
    }
    for (const [l, floor, ceiling] of [
      [h, HISTORY_BARE, HISTORY_BESIDE_NEXT],
      [`${h}, gzip`, HISTORY_GZIP_BARE, HISTORY_GZIP_BESIDE_NEXT],
    ] as const) {
      const s = shares(l, floor);
      const c = shares(ceiling, floor);
      if (c.length) ratios.push({ what: `${ceiling} (no target: the ceiling)`, ratio: median(c) / 100, target: null });
      if (s.length) ratios.push({ what: l, ratio: median(s) / 100, target: 0.5 });
      if (s.length)
        console.log(
          `  ${l}: ${median(s).toFixed(0)}% of a bare node:http server sending the same body and headers (target >= 50%)${c.length ? `; the floor's handler beside Next: ${median(c).toFixed(0)}%` : ""}`,
        );
    }
    const v = "volatility history 5000";
    const volSingle = single[v];
    if (volSingle) console.log(`  ${v}, latency of a single request (1 connection): p50 ${ms(volSingle.p50)} ms`);
    const bareRow = figures["bare node:http, 5000's bytes"];
    if (figures[v] && bareRow) {
      console.log(
        `  ${v} (${(bares["5000"]!.bytes / 1e6).toFixed(1)} MB uncompressed): p99 ${ms(figures[v].p99)} ms, ${figures[v].rps.toFixed(0)} req/s; node:http alone sending as many bytes: p99 ${ms(bareRow.p99)} ms, ${bareRow.rps.toFixed(0)} req/s`,
      );
    }
    const floors = new Set(targets.filter((t) => t.bare).map((t) => t.label));
    const over = Object.entries(figures).filter(([l, f]) => !floors.has(l) && f.p99 >= 50);
    console.log(
      `  p99 < 50 ms at ${CONNECTIONS} connections: ${over.length === 0 ? "every /v1 row run" : `not for ${over.map(([l, f]) => `${l} (${ms(f.p99)} ms)`).join(", ")}`}`,
    );
    if (setup.rows === "all" && only.length === 0) {
      const paints = await fcp(`${server.baseUrl}/indices/${index}`);
      console.log(
        `  first contentful paint of /indices/${index}: median ${median(paints).toFixed(0)} ms over ${paints.length} loads (target < 1500)`,
      );
    }
  } finally {
    if (script) fs.rmSync(script, { force: true });
    if (gzipScript) fs.rmSync(gzipScript, { force: true });
    for (const p of bareProcesses) p.kill();
    await server.stop();
  }
  return ratios;
}

main()
  .then(() => process.exit(0))
  .catch((error: Error) => {
    console.error(`bench: ${error.stack ?? error.message}`);
    process.exit(1);
  });
