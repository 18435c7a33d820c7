import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { chromium } from "@playwright/test";
import { createDatabase, dropDatabase, uniqueName } from "../tests/integration/support/pg";
import { startServer } from "../tests/integration/support/server";

// `npm run bench`: the production build against a fresh PostgreSQL database with the demo
// market and Redis, many keys so limits never trip. Prints figures; it is not a test.
const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS || 8);

async function load(url: string, keys: string[]) {
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` } }) }],
  });
  const non2xx = result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx, total: result.requests.total };
}

async function fcp(url: string, runs = 5): Promise<number[]> {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"] });
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
            new PerformanceObserver((list) => resolve(list.getEntries()[0]!.startTime)).observe({ type: "paint", buffered: true });
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const build = spawnSync(process.execPath, ["-e", "import('./scripts/lib/build.mjs').then(m => m.ensureBuild())"], { stdio: "inherit" });
  if (build.status !== 0) throw new Error("build failed");
  const name = uniqueName("pmb_bench");
  const url = await createDatabase(name);
  const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs"], { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" });
  if (migrate.status !== 0) throw new Error(migrate.stderr);
  const prefix = `${name}:`;
  const env = { DATABASE_URL: url, REDIS_URL: "redis://127.0.0.1:6379", REDIS_PREFIX: prefix, DEMO_MARKET: "1", ENGINE_SCHEDULER: "0", IP_LIMIT_MINUTE: "100000000", BENCH_FLOOR: "1", AUTH_SECRET: randomUUID() };
  const server = await startServer(env, 600_000);
  try {
    Object.assign(process.env, { DATABASE_URL: url, REDIS_URL: env.REDIS_URL, REDIS_PREFIX: prefix });
    const { ensureUser, mintKey } = await import("@/lib/keys/manage-keys");
    const keys: string[] = [];
    for (let i = 0; i < 40; i++) {
      const user = await ensureUser(`bench-${i}-${randomUUID()}@example.com`);
      keys.push((await mintKey(user, { limitMinute: 10_000_000, limitDay: 100_000_000 })).key);
    }
    const catalog = await (await fetch(`${server.baseUrl}/v1/indices`, { headers: { authorization: `Bearer ${keys[0]}` } })).json();
    const vol = await (await fetch(`${server.baseUrl}/v1/volatility`, { headers: { authorization: `Bearer ${keys[0]}` } })).json();
    const index = catalog.data.indices.find((i: { publicStatus: string }) => i.publicStatus === "active").ticker as string;
    const series = vol.data.series[0].ticker as string;
    const targets: Array<[string, string]> = [
      ["bare handler (floor)", "/bench-floor"],
      ["index latest", `/v1/indices/${index}/latest`],
      ["index history 90d 1h", `/v1/indices/${index}/history?interval=1h`],
      ["volatility latest", `/v1/volatility/${series}/latest`],
      ["volatility history 5000", `/v1/volatility/${series}/history?limit=5000`],
    ];
    console.log(`\nload: ${CONNECTIONS} connections, ${SECONDS} s each, ${keys.length} keys, PostgreSQL + Redis, production build`);
    console.log("endpoint".padEnd(28), "req/s".padStart(8), "p50 ms".padStart(8), "p99 ms".padStart(8), "non-2xx".padStart(8));
    const figures: Record<string, { rps: number; p50: number; p99: number }> = {};
    for (const [label, path] of targets) {
      await load(`${server.baseUrl}${path}`, keys.slice(0, 4)); // warm-up is not counted
      const r = await load(`${server.baseUrl}${path}`, keys);
      figures[label] = r;
      console.log(label.padEnd(28), r.rps.toFixed(0).padStart(8), String(r.p50).padStart(8), String(r.p99).padStart(8), String(r.non2xx).padStart(8));
    }
    const floor = figures["bare handler (floor)"]!.rps;
    console.log("\ntargets:");
    for (const l of ["index latest", "volatility latest"]) console.log(`  ${l}: ${((figures[l]!.rps / floor) * 100).toFixed(0)}% of the floor's throughput (target >= 70%), p99 ${figures[l]!.p99} ms (target < 50)`);
    console.log(`  index history 90d 1h: p50 ${figures["index history 90d 1h"]!.p50} ms (target < 30)`);
    const paints = await fcp(`${server.baseUrl}/indices/${index}`);
    console.log(`  first contentful paint of /indices/${index}: median ${median(paints).toFixed(0)} ms over ${paints.length} loads (target < 1500)`);
  } finally {
    await server.stop();
    await dropDatabase(name);
    process.exit(0);
  }
}

main().catch((error: Error) => {
  console.error(`bench: ${error.stack ?? error.message}`);
  process.exit(1);
});
