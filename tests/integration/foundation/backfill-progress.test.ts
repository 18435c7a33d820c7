import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDataDir } from "../faults/support";
import { startServer, type RunningServer } from "../support/server";

// The first start of the embedded default serves pages while the backfill computes the history,
// and where the data is not there yet they say how far it is. BACKFILL_PAUSE_FILE holds the
// backfill after its first chunk, so the test sees the server mid-backfill, then lets it finish.

const dataDir = tempDataDir("backfill");
const hold = path.join(dataDir, "hold-backfill");
let server: RunningServer | null = null;

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const PAGES = ["/", "/indices", "/volatility", "/indices/PMX-CRYPTO", "/volatility/btc-range", "/status"];
const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: dataDir, DEMO_MARKET: "1", ENGINE_SCHEDULER: "0", BACKFILL_PAUSE_FILE: hold };

async function healthz(): Promise<{ status: number; body: { status: string; backfill: { state: string; hoursDone: number; hoursTotal: number | null; through: string | null } } }> {
  const res = await fetch(`${server!.baseUrl}/healthz`);
  return { status: res.status, body: await res.json() };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${server?.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("pages during the start-up backfill", () => {
  it("show the backfill's progress where data is not there yet, and not once it is done; operator incidents go through the running server", async () => {
    fs.writeFileSync(hold, "");
    server = await startServer(env, 180_000, 503);
    // Held after its first chunk: hours done, of a known total, through a computed hour.
    const held = await until("the first chunk", 120_000, async () => {
      const h = await healthz();
      return h.body.backfill.state === "running" && h.body.backfill.hoursDone > 0 && h.body.backfill.through ? h : null;
    });
    expect(held.status).toBe(503);
    expect(held.body.status).toBe("starting");
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
      expect(html, p).toContain(`${hoursDone.toLocaleString("en-US")} of ${hoursTotal!.toLocaleString("en-US")} hours computed`);
    }
    // The lists show the notice instead of tables of values that stop at an old hour.
    expect(await (await fetch(`${server.baseUrl}/indices`)).text()).not.toContain('data-testid="index-table"');
    const json = (await (await fetch(`${server.baseUrl}/status.json`)).json()) as { backfill: { state: string; hoursDone: number } };
    expect(json.backfill).toMatchObject({ state: "running", hoursDone });

    fs.rmSync(hold);
    await until("the backfill to finish", 480_000, async () => ((await healthz()).status === 200 ? true : null));
    expect(server.output()).toMatch(/\[engine\] backfill: \d+\/\d+ hours \(\d+%\), through /);
    for (const p of PAGES) {
      const html = await (await fetch(`${server.baseUrl}${p}`)).text();
      expect(html, p).not.toContain('data-testid="backfill-notice"');
    }
    expect(await (await fetch(`${server.baseUrl}/indices`)).text()).toContain("PMX-CRYPTO");

    // `npm run incidents` in the embedded default reaches the database through the running server.
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/incidents.ts", ...args], { env: { ...process.env, ...env }, encoding: "utf8" });
    const opened = cli(["open", "--title", "Planned maintenance", "--note", "Starting."]);
    expect(opened.status, opened.stderr).toBe(0);
    const ref = /INC-[0-9A-F]{8}/.exec(opened.stdout)?.[0] ?? "";
    expect(await (await fetch(`${server.baseUrl}/status`)).text()).toContain(`data-ref="${ref}"`);
    expect(cli(["close", ref]).status).toBe(0);
    expect(cli(["list"]).stdout).not.toContain(ref);
  }, 720_000);
});
