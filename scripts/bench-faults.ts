import fs from "node:fs";
import os from "node:os";
import { mintKey, ownDatabase, startProxy, startRedis, stopProcess, tempDataDir } from "../tests/integration/faults/support";
import { freePort, startServer } from "../tests/integration/support/server";

// `npm run bench:faults`: how fast the service says "unavailable" when a dependency is down, and
// how soon it serves again once the dependency is back. Prints figures; it is not a test (the
// fault layer of `npm test` checks the behaviour: statuses, bodies, headers, recovery).
//
// One production server on PostgreSQL, with a Redis of the bench's own behind a TCP proxy that the
// bench switches between its states (tests/integration/faults/support.ts): open (Redis up),
// closed (Redis refusing connections), silent (held connections go quiet and new ones are never
// answered: a network partition, the case a client detects only by REDIS_COMMAND_TIMEOUT_MS).
// Target: a keyed request answers 503 with Retry-After within 250 ms while Redis is down.
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const TARGET_MS = 250;

interface Sample {
  ms: number;
  status: number;
  retryAfter: boolean;
}

async function request(url: string, key: string): Promise<Sample> {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status, retryAfter: res.headers.has("retry-after") };
  } catch {
    return { ms: performance.now() - started, status: 0, retryAfter: false };
  }
}

/** Requests for `seconds`, `connections` at a time, each connection waiting for its answer. */
async function load(url: string, keys: string[], connections: number, seconds: number): Promise<Sample[]> {
  const out: Sample[] = [];
  const until = performance.now() + seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) out.push(await request(url, keys[i++ % keys.length]!));
    }),
  );
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const f1 = (v: number) => (v < 10 ? v.toFixed(1) : v.toFixed(0));

function row(label: string, connections: number, samples: Sample[]): void {
  const times = samples.map((s) => s.ms);
  const by = new Map<number, number>();
  for (const s of samples) by.set(s.status, (by.get(s.status) ?? 0) + 1);
  const statuses = [...by].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s || "error"}x${n}`).join(" ");
  const withRetry = samples.filter((s) => s.status === 503 && s.retryAfter).length;
  const over = samples.filter((s) => s.ms > TARGET_MS).length;
  console.log(
    label.padEnd(34),
    String(connections).padStart(5),
    String(samples.length).padStart(7),
    f1(pct(times, 50)).padStart(7),
    f1(pct(times, 99)).padStart(7),
    f1(Math.max(...times)).padStart(7),
    String(over).padStart(8),
    `${statuses}${withRetry ? ` (503 with Retry-After: ${withRetry})` : ""}`,
  );
}

/** Milliseconds from now until `url` answers 200 again (polled every 20 ms). */
async function recovery(url: string, key: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    if ((await request(url, key)).status === 200) return performance.now() - started;
    if (performance.now() - started > 60_000) return NaN;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  const database = await ownDatabase("bench_faults");
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  const proxy = await startProxy(redisPort, await freePort());
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    REDIS_PREFIX: "pmb-bench-faults:",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: "100000000",
    EMAIL_SERVER: "smtp://127.0.0.1:1",
    AUTH_SECRET: "bench-faults-secret-0123456789abcdef",
    // Its usage journal in a directory of its own, not the `.data` that `npm start` uses.
    DATA_DIR: tempDataDir("bench-faults"),
  };
  const server = await startServer(env);
  try {
    const keys = Array.from({ length: 8 }, () => mintKey(env, { minute: 1_000_000, day: 10_000_000 }));
    const url = `${server.baseUrl}/v1/indices`;
    for (const k of keys) await request(url, k); // every key resolved and cached once
    console.log(`\nkeyed GET /v1/indices, one server on PostgreSQL, Redis behind a proxy; ${SECONDS} s per row; ${os.cpus().length} CPUs, load average ${os.loadavg().map((v) => v.toFixed(2)).join(" ")}`);
    console.log(`target: 503 with Retry-After within ${TARGET_MS} ms of the request while Redis is down`);
    console.log("state".padEnd(34), "conns".padStart(5), "answers".padStart(7), "p50 ms".padStart(7), "p99 ms".padStart(7), "max ms".padStart(7), `>${TARGET_MS} ms`.padStart(8), "statuses");
    for (const connections of [1, 32]) row("Redis up", connections, await load(url, keys, connections, SECONDS));

    await proxy.close();
    for (const connections of [1, 32]) row("Redis refusing connections", connections, await load(url, keys, connections, SECONDS));
    await proxy.open();
    console.log(`  back to 200 ${f1(await recovery(url, keys[0]!))} ms after Redis accepted connections again`);

    await proxy.silence();
    for (const connections of [1, 32]) row("Redis silent (accepts, never answers)", connections, await load(url, keys, connections, SECONDS));
    await proxy.open();
    console.log(`  back to 200 ${f1(await recovery(url, keys[0]!))} ms after Redis answered again`);

    // Stopped and started empty: the windows and the revocation epoch are gone with it.
    await stopProcess(redis);
    row("Redis process stopped", 1, await load(url, keys, 1, SECONDS));
    redis = await startRedis(redisPort);
    console.log(`  back to 200 ${f1(await recovery(url, keys[0]!))} ms after Redis restarted empty`);
  } finally {
    await server.stop();
    await proxy.close();
    await stopProcess(redis);
    await database.drop();
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0)).catch((error: Error) => {
  console.error(`bench:faults: ${error.stack ?? error.message}`);
  process.exit(1);
});
