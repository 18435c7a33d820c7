import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The usage journal's lines are built from a per-hour cache of their start (lib/keys/usage-meter.ts):
// they must stay exactly JSON.stringify([keyId, hourMs, endpoint, statusClass, atMs]), and a
// replayed file must count what was metered.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-metering-"));
// A meter of this test's own, journaling to its own directory; it never reaches a database.
const noDatabase = () => Promise.reject(new Error("no database in this test"));

beforeAll(() => {
  process.env.DATA_DIR = dir;
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("usage journal lines", () => {
  it("are the JSON array of each request, across keys, endpoints, classes and hours, and replay to the same counts", async () => {
    const { createMeter, readUsageFile, statusClass } = await import("@/lib/keys/usage-meter");
    const { createJournals } = await import("@/lib/plumbing/journal");
    const { createShutdown } = await import("@/lib/plumbing/shutdown");
    const journals = createJournals();
    const meter = createMeter({
      bulkWrite: noDatabase,
      dataDir: dir,
      flushMs: 3_600_000,
      journals,
      shutdown: createShutdown(),
    });
    await meter.startJournal();
    const H = 3_600_000;
    const T = 1_795_000_000_000 - (1_795_000_000_000 % H);
    const calls: Array<[string, string, number, number]> = [
      ["k-1", "/v1/indices/{ticker}/latest", 200, T + 5],
      ["k-1", "/v1/indices/{ticker}/latest", 200, T + 6],
      ["k-1", "/v1/indices/{ticker}/latest", 429, T + 7],
      ["k-2", '/v1/"odd"\\label', 200, T + 8],
      ["k-1", "/v1/indices/{ticker}/latest", 200, T + H + 1], // the next hour
      ["k-1", "/v1/volatility", 503, T + H + 2],
    ];
    for (const [key, endpoint, status, at] of calls) meter.record(key, endpoint, status, at);
    journals.flush();
    const file = fs.readdirSync(path.join(dir, "journal")).find((f) => f.startsWith("usage-"))!;
    const lines = fs
      .readFileSync(path.join(dir, "journal", file), "utf8")
      .trim()
      .split("\n");
    expect(lines).toEqual(
      calls.map(([key, endpoint, status, at]) =>
        JSON.stringify([key, at - (at % H), endpoint, statusClass(status), at]),
      ),
    );
    const counts = Object.fromEntries(readUsageFile(path.join(dir, "journal", file)).counts);
    const hour = (ms: number) => new Date(ms).toISOString();
    expect(counts).toEqual({
      [`k-1|${hour(T)}|/v1/indices/{ticker}/latest|2xx`]: 2,
      [`k-1|${hour(T)}|/v1/indices/{ticker}/latest|429`]: 1,
      [`k-2|${hour(T)}|/v1/"odd"\\label|2xx`]: 1,
      [`k-1|${hour(T + H)}|/v1/indices/{ticker}/latest|2xx`]: 1,
      [`k-1|${hour(T + H)}|/v1/volatility|5xx`]: 1,
    });
  });
});

describe("request log entries", () => {
  it("ride on the same journal line, replay with their request ids, and keep the last 100 per key", async () => {
    const { createMeter, readUsageFile, REQUEST_LOG_SIZE } = await import("@/lib/keys/usage-meter");
    const { createJournals } = await import("@/lib/plumbing/journal");
    const { createShutdown } = await import("@/lib/plumbing/shutdown");
    const journals = createJournals();
    const own = fs.mkdtempSync(path.join(dir, "log-"));
    const meter = createMeter({
      bulkWrite: noDatabase,
      dataDir: own,
      flushMs: 3_600_000,
      journals,
      shutdown: createShutdown(),
    });
    await meter.startJournal();
    const T = 1_795_100_000_000;
    const detail = (i: number) => ({
      requestId: `req-${i}`,
      method: "GET",
      path: `/v1/indices/X/latest?n=${i}`,
      errorCode: i % 2 ? "not_found" : null,
    });
    for (let i = 0; i < 250; i++)
      meter.record("k-log", "/v1/indices/{ticker}/latest", i % 2 ? 404 : 200, T + i, detail(i));
    meter.record("k-log-2", "/v1/*", 429, T + 999, {
      requestId: "req-other",
      method: "GET",
      path: "/v1/x",
      errorCode: "rate_limited",
    });
    journals.flush();
    const files = fs.readdirSync(path.join(own, "journal")).filter((f) => f.startsWith("usage-"));
    const file = files
      .map((f) => path.join(own, "journal", f))
      .find((f) => fs.readFileSync(f, "utf8").includes("req-249"))!;
    const line = fs
      .readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.includes('"req-249"'))!;
    expect(JSON.parse(line)).toEqual([
      "k-log",
      T + 249 - ((T + 249) % 3_600_000),
      "/v1/indices/{ticker}/latest",
      "4xx",
      T + 249,
      404,
      "req-249",
      "GET",
      "/v1/indices/X/latest?n=249",
      "not_found",
    ]);

    const batch = readUsageFile(file);
    const kept = batch.requests.get("k-log")!.slice(-REQUEST_LOG_SIZE);
    expect(kept.map((r) => r.requestId)).toEqual(Array.from({ length: 100 }, (_, i) => `req-${150 + i}`));
    expect(batch.requests.get("k-log")!.length).toBeLessThan(2 * REQUEST_LOG_SIZE);
    expect(batch.requests.get("k-log-2")).toEqual([
      {
        keyId: "k-log-2",
        atMs: T + 999,
        endpoint: "/v1/*",
        status: 429,
        requestId: "req-other",
        method: "GET",
        path: "/v1/x",
        errorCode: "rate_limited",
      },
    ]);
  });

  it("never keeps a key pasted into a query, and caps a long path", async () => {
    const { logPath } = await import("@/lib/keys/usage-meter");
    expect(logPath("/v1/indices?api_key=svc_live_AbC123-_xyz&x=1")).toBe("/v1/indices?api_key=[redacted]&x=1");
    expect(logPath("/v1/x/svc_live_zz")).toBe("/v1/x/[redacted]");
    const long = logPath(`/v1/${"a".repeat(5000)}`);
    expect(long.length).toBe(1024);
    expect(long.endsWith("…")).toBe(true);
  });
});
