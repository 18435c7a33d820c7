import fs from "node:fs";
import os from "node:os";
import { admin } from "../tests/integration/support/pg";
import {
  insertKeys,
  mintKey,
  ownDatabase,
  startProxy,
  startRedis,
  stopProcess,
  tempDataDir,
} from "../tests/integration/faults/support";
import { freePort, startServer } from "../tests/integration/support/server";
import { benchSettings } from "./lib/bench-settings";

// `npm run bench:faults`: how fast the service says "unavailable" when a dependency is down, and
// how soon it serves again once the dependency is back. Prints figures; it is not a test (the
// fault layer of `npm test` checks the behaviour: statuses, bodies, headers, recovery).
//
// One production server on PostgreSQL, with a Redis of the bench's own behind a TCP proxy that the
// bench switches between its states (tests/integration/faults/support.ts): open (Redis up),
// closed (Redis refusing connections), silent (held connections go quiet and new ones are never
// answered: a network partition, the case a client detects only by REDIS_COMMAND_TIMEOUT_MS).
// Target (issue 17): a keyed request answers 503 with Retry-After within 250 ms while Redis is down.
//
// Then a second server whose PostgreSQL is behind such a proxy: refusing (closed port), closed to
// connections by PostgreSQL itself (ALTER DATABASE ... ALLOW_CONNECTIONS false), and silent (a
// partition, detected only by DB_QUERY_TIMEOUT_MS). Requests use keys the server has not resolved,
// so each needs the database. Target: 503 with Retry-After within DB_QUERY_TIMEOUT_MS + 250 ms,
// and back to 200 within 2 s of the database.
const SECONDS = benchSettings.seconds(5);
const TARGET_MS = 250;
const DB_BOUND_MS = 2000; // the default DB_QUERY_TIMEOUT_MS

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

function row(label: string, connections: number, samples: Sample[], target = TARGET_MS): void {
  const times = samples.map((s) => s.ms);
  const by = new Map<number, number>();
  for (const s of samples) by.set(s.status, (by.get(s.status) ?? 0) + 1);
  const statuses = [...by]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s || "error"}x${n}`)
    .join(" ");
  const withRetry = samples.filter((s) => s.status === 503 && s.retryAfter).length;
  const over = samples.filter((s) => s.ms > target).length;
  console.log(
    label.padEnd(34),
    String(connections).padStart(5),
    String(samples.length).padStart(7),
    f1(pct(times, 50)).padStart(7),
    f1(pct(times, 99)).padStart(7),
    f1(Math.max(...times)).padStart(7),
    `${over}${target === TARGET_MS ? "" : ` >${target}`}`.padStart(8),
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
    console.log(
      `\nkeyed GET /v1/indices, one server on PostgreSQL, Redis behind a proxy; ${SECONDS} s per row; ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(" ")}`,
    );
    console.log(`target: 503 with Retry-After within ${TARGET_MS} ms of the request while Redis is down`);
    console.log(
      "state".padEnd(34),
      "conns".padStart(5),
      "answers".padStart(7),
      "p50 ms".padStart(7),
      "p99 ms".padStart(7),
      "max ms".padStart(7),
      `>${TARGET_MS} ms`.padStart(8),
      "statuses",
    );
    for (const connections of [1, 32]) row("Redis up", connections, await load(url, keys, connections, SECONDS));

    await proxy.close();
    for (const connections of [1, 32])
      row("Redis refusing connections", connections, await load(url, keys, connections, SECONDS));
    await proxy.open();
    console.log(`  back to 200 ${f1(await recovery(url, keys[0]!))} ms after Redis accepted connections again`);

    await proxy.silence();
    for (const connections of [1, 32])
      row("Redis silent (accepts, never answers)", connections, await load(url, keys, connections, SECONDS));
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

/** Requests each with a key of its own that no server resolved yet, `connections` at a time, for `seconds`. */
async function loadFresh(url: string, keys: string[], connections: number, seconds: number): Promise<Sample[]> {
  const out: Sample[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until && keys.length > 0) out.push(await request(url, keys.pop()!));
    }),
  );
  if (keys.length === 0) console.log("  (the bench's keys ran out: this row and the next are short)");
  return out;
}

async function databaseRows(): Promise<void> {
  const database = await ownDatabase("bench_faults_db");
  const name = new URL(database.url).pathname.slice(1);
  const proxy = await startProxy(Number(new URL(database.url).port || 5432), await freePort());
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const env = {
    DATABASE_URL: viaProxy.toString(),
    REDIS_URL: "",
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: "100000000",
    DATA_DIR: tempDataDir("bench-faults-db"),
  };
  const server = await startServer(env);
  try {
    // Plenty of keys: each request spends one, so each needs the database (a refusing database
    // answers 503 in a few milliseconds, so a row at 32 connections can spend thousands a second).
    const keys = await insertKeys(database.url, 6000 * SECONDS * 2);
    const url = `${server.baseUrl}/v1/indices`;
    const fresh = async () => (await request(url, keys.pop()!)).status === 200;
    const back = async () => {
      const started = performance.now();
      while (!(await fresh())) {
        if (performance.now() - started > 60_000) return NaN;
        await new Promise((r) => setTimeout(r, 20));
      }
      return performance.now() - started;
    };
    console.log(
      `\nkeyed GET /v1/indices with keys not resolved yet, one server, PostgreSQL behind a proxy (DB_QUERY_TIMEOUT_MS ${DB_BOUND_MS}); ${SECONDS} s per row`,
    );
    console.log(
      `target: 503 with Retry-After within ${DB_BOUND_MS + TARGET_MS} ms while the database is down; 200 within 2000 ms of its return`,
    );
    console.log(
      "state".padEnd(34),
      "conns".padStart(5),
      "answers".padStart(7),
      "p50 ms".padStart(7),
      "p99 ms".padStart(7),
      "max ms".padStart(7),
      "over".padStart(8),
      "statuses",
    );
    for (const connections of [1, 32])
      row("database up", connections, await loadFresh(url, keys, connections, SECONDS), DB_BOUND_MS + TARGET_MS);

    await proxy.close();
    for (const connections of [1, 32])
      row(
        "database refusing (port closed)",
        connections,
        await loadFresh(url, keys, connections, SECONDS),
        DB_BOUND_MS + TARGET_MS,
      );
    await proxy.open();
    console.log(`  back to 200 ${f1(await back())} ms after the database accepted connections again`);

    await admin(async (c) => {
      await c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
    });
    for (const connections of [1, 32])
      row(
        "database closed (55000, 57P01)",
        connections,
        await loadFresh(url, keys, connections, SECONDS),
        DB_BOUND_MS + TARGET_MS,
      );
    await admin((c) => c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`));
    console.log(`  back to 200 ${f1(await back())} ms after the database allowed connections again`);

    await proxy.silence();
    for (const connections of [1, 32])
      row(
        "database silent (partition)",
        connections,
        await loadFresh(url, keys, connections, SECONDS),
        DB_BOUND_MS + TARGET_MS,
      );
    const started = performance.now();
    const health = await fetch(`${server.baseUrl}/healthz`, { signal: AbortSignal.timeout(30_000) });
    console.log(`  /healthz ${health.status} in ${f1(performance.now() - started)} ms while silent`);
    // Healed: new connections pass, those held through the partition stay silent.
    await proxy.heal();
    console.log(
      `  back to 200 ${f1(await back())} ms after the partition healed (connections held through it still silent)`,
    );
  } finally {
    await admin((c) => c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)).catch(() => undefined);
    await server.stop();
    await proxy.close();
    await database.drop();
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
}

main()
  .then(() => databaseRows())
  .then(() => process.exit(0))
  .catch((error: Error) => {
    console.error(`bench:faults: ${error.stack ?? error.message}`);
    process.exit(1);
  });
