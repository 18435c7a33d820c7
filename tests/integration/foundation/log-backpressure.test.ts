import fs from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../support/server";
import { ownDatabase, tempDataDir } from "../faults/support";
import { waitFor } from "../../support/wait-for";

// A log collector that stops reading the server's stdout (lib/server/logging.ts, LOG_BUFFER_BYTES):
// the built server keeps answering, holds at most LOG_BUFFER_BYTES of lines, drops and counts the
// rest, and says how many once stdout is read again.
const BUFFER_BYTES = 16_384;
let database: Awaited<ReturnType<typeof ownDatabase>>;
let dataDir: string;
let server: RunningServer;
let baseUrl: string;
let stdout = "";
let stderr = "";

beforeAll(async () => {
  database = await ownDatabase("logbuf");
  dataDir = tempDataDir("logbuf");
  server = await startServer({
    DATABASE_URL: database.url,
    REDIS_URL: "",
    DATA_DIR: dataDir,
    DEMO_MARKET: "0",
    ENGINE_SCHEDULER: "0",
    IP_LIMIT_MINUTE: "1000000",
    LOG_BUFFER_BYTES: String(BUFFER_BYTES),
  });
  baseUrl = server.baseUrl;
  // stdout and stderr apart (the server's output() joins them)
  server.process.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  server.process.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
}, 240_000);

afterAll(async () => {
  await server?.stop("SIGKILL");
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const droppedMetric = async () => {
  const m = /^pmb_log_lines_dropped_total(?:\{[^}]*\})? (\d+)$/m.exec(await (await fetch(`${baseUrl}/metrics`)).text());
  if (!m) throw new Error("pmb_log_lines_dropped_total is not in /metrics");
  return Number(m[1]);
};

it("a stdout nobody reads holds at most LOG_BUFFER_BYTES of lines: the server answers on, drops and counts the rest, and says how many once stdout is read again", async () => {
  expect(await droppedMetric()).toBe(0);
  // The collector stalls: nothing reads the pipe, which fills, then the server's buffer.
  server.process.stdout!.pause();
  const statuses: number[] = [];
  for (let round = 0; round < 60; round++) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${baseUrl}/v1/no-such-endpoint`).then((r) => r.status)),
    );
    statuses.push(...batch);
  }
  // Every request was answered while the log waited (3,000 access lines, several times the pipe
  // and the buffer together).
  expect(statuses.filter((s) => s !== 404)).toEqual([]);
  const dropped = await droppedMetric();
  expect(dropped).toBeGreaterThan(0);
  expect(stderr).not.toMatch(/log lines were dropped/);

  server.process.stdout!.resume();
  const warning = await waitFor("the warn line of dropped log lines", () =>
    stderr.split("\n").find((l) => l.includes("log lines were dropped")),
  );
  const said = JSON.parse(warning) as { level: string; msg: string };
  expect(said.level).toBe("warn");
  const count = Number(/^(\d+) log lines were dropped/.exec(said.msg)?.[1]);
  // The count said is the metric's (the /metrics requests' own lines may have been dropped too).
  expect(count).toBeGreaterThanOrEqual(dropped);
  expect(await droppedMetric()).toBe(count);

  // Logging goes on: a new answer's access line arrives, and every line that arrived is whole JSON.
  const requestId = (await fetch(`${baseUrl}/v1/no-such-endpoint`)).headers.get("x-request-id");
  await waitFor("the access line after the stall", () => stdout.includes(`"requestId":"${requestId}"`));
  const lines = stdout.split("\n").filter((l) => l.trim());
  for (const line of lines) expect(() => JSON.parse(line), line.slice(0, 200)).not.toThrow();
  const accessLines = lines.filter((l) => l.includes('"msg":"request"')).length;
  expect(accessLines).toBeLessThan(statuses.length);
}, 240_000);
