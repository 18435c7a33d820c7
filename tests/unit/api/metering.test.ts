import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The usage journal's lines are built from a per-hour cache of their start (lib/api/metering.ts):
// they must stay exactly JSON.stringify([keyId, hourMs, endpoint, statusClass, atMs]), and a
// replayed file must count what was metered.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmb-metering-"));

beforeAll(() => {
  process.env.DATA_DIR = dir;
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("usage journal lines", () => {
  it("are the JSON array of each request, across keys, endpoints, classes and hours, and replay to the same counts", async () => {
    const { meter, readUsageFile, startUsageJournal, statusClass } = await import("@/lib/api/metering");
    const { flushJournals } = await import("@/lib/server/journal");
    await startUsageJournal();
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
    for (const [key, endpoint, status, at] of calls) meter(key, endpoint, status, at);
    flushJournals();
    const file = fs.readdirSync(path.join(dir, "journal")).find((f) => f.startsWith("usage-"))!;
    const lines = fs.readFileSync(path.join(dir, "journal", file), "utf8").trim().split("\n");
    expect(lines).toEqual(calls.map(([key, endpoint, status, at]) => JSON.stringify([key, at - (at % H), endpoint, statusClass(status), at])));
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
