import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../support/server";
import { mintKey, ownDatabase, tempDataDir } from "./support";

// The API process (API_PROCESS=1) killed outright: its Next child must not live on as an orphan,
// and the rate-limit windows it held (in memory, journaled to DATA_DIR) come back with it.

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
const childrenOf = (pid: number) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

describe("an API process killed with SIGKILL", () => {
  it("takes its Next process with it, and its windows survive the restart", async () => {
    const db = await ownDatabase("apiproc");
    cleanups.push(db.drop);
    const dataDir = tempDataDir("apiproc");
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { API_PROCESS: "1", DATABASE_URL: db.url, REDIS_URL: "", DATA_DIR: dataDir, DEMO_MARKET: "0", ENGINE_SCHEDULER: "0" };
    let server = await startServer(env, 120_000);
    cleanups.push(() => void server.stop());
    const key = mintKey(env, { minute: 100, day: 3 });
    const get = () => fetch(`${server.baseUrl}/v1`, { headers: { Authorization: `Bearer ${key}` } });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);

    const [next] = childrenOf(server.process.pid!);
    expect(next && alive(next)).toBe(true);
    await server.stop("SIGKILL");
    // The child sees its IPC channel close and shuts down (within its 10 s shutdown budget).
    for (let waited = 0; alive(next!) && waited < 80; waited++) await new Promise((r) => setTimeout(r, 250));
    expect(alive(next!)).toBe(false);

    server = await startServer(env, 120_000);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("daily_limit_reached");
  });
});
