import { spawnSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINE_LOCK } from "@/lib/ingest/engine-runner";
import { waitFor } from "@/tests/support/wait-for";
import { ownDatabase, tempDataDir } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";

// The first start serves pages while the backfill computes the history, and where the data is not
// there yet they say how far it is. The backfill is held after its first chunk the way another
// instance computing holds it: a connection of this test takes the engine lock, and the backfill
// waits for its turn (reporting `running`) until the lock is released.

const dataDir = tempDataDir("backfill");
let database: Awaited<ReturnType<typeof ownDatabase>>;
let otherInstance: pg.Client;
let server: RunningServer | null = null;

beforeAll(async () => {
  database = await ownDatabase("backfill");
  otherInstance = new pg.Client({ connectionString: database.url });
  await otherInstance.connect();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await otherInstance?.end().catch(() => undefined);
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const PAGES = ["/", "/indices", "/volatility", "/indices/PMX-CRYPTO", "/volatility/btc-range", "/status"];
const env = () => ({
  DATABASE_URL: database.url,
  REDIS_URL: "",
  DATA_DIR: dataDir,
  DEMO_MARKET: "1",
  ENGINE_SCHEDULER: "0",
});
const lock = () => otherInstance.query("SELECT pg_advisory_lock($1)", [ENGINE_LOCK]);
const unlock = () => otherInstance.query("SELECT pg_advisory_unlock($1)", [ENGINE_LOCK]);
/** Whether another session (a backfill chunk's transaction) holds the engine lock. */
const backfillHoldsLock = async () =>
  ((
    await otherInstance.query(
      "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND pid <> pg_backend_pid()",
      [ENGINE_LOCK],
    )
  ).rowCount ?? 0) > 0;

async function healthz(): Promise<{
  status: number;
  body: {
    status: string;
    backfill: { state: string; hoursDone: number; hoursTotal: number | null; through: string | null; pending: boolean };
  };
}> {
  const res = await fetch(`${server!.baseUrl}/healthz`);
  return { status: res.status, body: await res.json() };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  return waitFor(what, probe, { timeoutMs, intervalMs: 250 }).catch((error: Error) => {
    throw new Error(`${error.message}:\n${server?.output().slice(-2000)}`);
  });
}

describe("pages during the start-up backfill", () => {
  it("show the backfill's progress where data is not there yet, and not once it is done; an operator's incident shows on the status page", async () => {
    // Locked before the start: the backfill waits from its first chunk on.
    await lock();
    server = await startServer(env(), 180_000, 503);
    // Let a chunk through, then hold the next: released until a transaction of the backfill has
    // taken the lock, taken back once it commits (the lock call waits for that).
    await until("a chunk computed", 120_000, async () => {
      await unlock();
      await waitFor("the backfill to take the engine lock", backfillHoldsLock, { timeoutMs: 60_000, intervalMs: 20 });
      await lock();
      return (await healthz()).body.backfill.hoursDone > 0 ? true : null;
    });
    // Held: hours done, of a known total, through a computed hour, the same in two readings in a row.
    let previous = "";
    const held = await until("the held backfill", 30_000, async () => {
      const b = await healthz();
      const same = JSON.stringify(b.body.backfill) === previous;
      previous = JSON.stringify(b.body.backfill);
      return same && b.body.backfill.state === "running" && b.body.backfill.through && b.body.backfill.hoursDone > 0
        ? b
        : null;
    });
    expect(held.status).toBe(503);
    expect(held.body.status).toBe("starting");
    expect(held.body.backfill.pending).toBe(true);
    const { hoursDone, hoursTotal, through } = held.body.backfill;
    expect(hoursTotal).toBeGreaterThan(hoursDone);

    for (const p of PAGES) {
      const res = await fetch(`${server.baseUrl}${p}`);
      expect(res.status, p).toBe(200);
      const html = await res.text();
      expect(html, p).toContain('data-testid="backfill-notice"');
      expect(html, p).toContain(`data-hours-done="${hoursDone}"`);
      expect(html, p).toContain(`data-hours-total="${hoursTotal}"`);
      expect(html, p).toContain(`data-through="${through}"`);
      expect(html, p).toContain(
        `${hoursDone.toLocaleString("en-US")} of ${hoursTotal!.toLocaleString("en-US")} hours computed`,
      );
    }
    // The lists show the notice instead of tables of values that stop at an old hour.
    expect(await (await fetch(`${server.baseUrl}/indices`)).text()).not.toContain('data-testid="index-table"');
    const json = (await (await fetch(`${server.baseUrl}/status.json`)).json()) as {
      backfill: { state: string; hoursDone: number };
    };
    expect(json.backfill).toMatchObject({ state: "running", hoursDone });

    await unlock();
    await until("the backfill to finish", 480_000, async () => ((await healthz()).status === 200 ? true : null));
    // the start-up work after it (incidents, bundle builds) ends too, and /healthz says so
    await until("the start-up work to end", 300_000, async () =>
      (await healthz()).body.backfill.pending === false ? true : null,
    );
    expect(server.output()).toMatch(/\[engine\] backfill: \d+\/\d+ hours \(\d+%\), through /);
    for (const p of PAGES) {
      const html = await (await fetch(`${server.baseUrl}${p}`)).text();
      expect(html, p).not.toContain('data-testid="backfill-notice"');
    }
    expect(await (await fetch(`${server.baseUrl}/indices`)).text()).toContain("PMX-CRYPTO");

    // An incident opened with `npm run incidents` shows on the running server's status page.
    const cli = (args: string[]) =>
      spawnSync(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/incidents.ts", ...args],
        { env: { ...process.env, ...env() }, encoding: "utf8" },
      );
    const opened = cli(["open", "--title", "Planned maintenance", "--note", "Starting."]);
    expect(opened.status, opened.stderr).toBe(0);
    const ref = /INC-[0-9A-F]{8}/.exec(opened.stdout)?.[0] ?? "";
    // the CLI writes the database directly: the server's read models show it once their cache refreshes
    await until("the incident on /status", 30_000, async () =>
      (await (await fetch(`${server!.baseUrl}/status`)).text()).includes(`data-ref="${ref}"`) ? true : null,
    );
    expect(cli(["close", ref]).status).toBe(0);
    expect(cli(["list"]).stdout).not.toContain(ref);
  }, 720_000);
});
